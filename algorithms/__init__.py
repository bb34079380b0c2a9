"""Bundled algorithms: each a vertex program plus one function returning numpy arrays."""

from gas.algorithms.als import ALSProgram, als
from gas.algorithms.centrality import EigenvectorProgram, KatzProgram, eigenvector_centrality, katz_centrality
from gas.algorithms.coloring import ColoringProgram, coloring, count_conflicts
from gas.algorithms.components import ComponentsProgram, connected_components
from gas.algorithms.diameter import (
    DiameterEstimate,
    HyperANFProgram,
    approximate_diameter,
    effective_diameter,
    neighborhood_function,
)
from gas.algorithms.hits import HITSProgram, hits
from gas.algorithms.kcore import CoreProgram, core_number
from gas.algorithms.label_propagation import LabelPropagationProgram, label_propagation_communities
from gas.algorithms.label_propagation_variants import AsyncLabelPropagationProgram, label_propagation_async
from gas.algorithms.lda import LDAModel, LDAProgram, heldout_perplexity, lda
from gas.algorithms.mf_model import MFModel
from gas.algorithms.pagerank import PageRankProgram, WeightedPageRankProgram, pagerank
from gas.algorithms.pagerank_personal import PersonalPageRankProgram
from gas.algorithms.scc import strongly_connected_components
from gas.algorithms.sgd import SGDProgram, sgd
from gas.algorithms.sssp import HopsProgram, SSSPProgram, sssp
from gas.algorithms.triangles import (
    TrianglesProgram,
    average_clustering,
    clustering,
    transitivity,
    triangles,
)

__all__ = [
    "pagerank",
    "connected_components",
    "sssp",
    "als",
    "sgd",
    "MFModel",
    "ALSProgram",
    "SGDProgram",
    "lda",
    "heldout_perplexity",
    "LDAModel",
    "LDAProgram",
    "coloring",
    "count_conflicts",
    "ColoringProgram",
    "PageRankProgram",
    "WeightedPageRankProgram",
    "ComponentsProgram",
    "SSSPProgram",
    "HopsProgram",
    "triangles",
    "clustering",
    "average_clustering",
    "transitivity",
    "TrianglesProgram",
    "strongly_connected_components",
    "core_number",
    "CoreProgram",
    "label_propagation_communities",
    "LabelPropagationProgram",
    "label_propagation_async",
    "AsyncLabelPropagationProgram",
    "PersonalPageRankProgram",
    "hits",
    "HITSProgram",
    "katz_centrality",
    "KatzProgram",
    "eigenvector_centrality",
    "EigenvectorProgram",
    "approximate_diameter",
    "neighborhood_function",
    "effective_diameter",
    "DiameterEstimate",
    "HyperANFProgram",
]
