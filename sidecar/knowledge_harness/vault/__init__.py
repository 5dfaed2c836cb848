"""The vault layer: the only code that reads or writes vault files."""
