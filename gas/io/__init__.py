"""Reading and writing graphs: text edge lists, the binary ``.npz`` format, atomic output."""

from gas.io.atomic import atomic_open
from gas.io.binary import load_npz, save
from gas.io.edgelist import read_edgelist
from gas.io.labels import read_labelled_edgelist
from gas.io.load import load

__all__ = ["atomic_open", "load", "load_npz", "read_edgelist", "read_labelled_edgelist", "save"]
