"""Layouts of the variants: the line (with the All Fives spinner) and, separately, Mexican Train's trains."""
