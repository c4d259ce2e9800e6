"""Thin PySpark entry points, one per stage; all Oracle knowledge is in redo_lib."""
