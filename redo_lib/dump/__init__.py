"""Oracle's text logfile dump (``ALTER SYSTEM DUMP LOGFILE``) as a second input and as an output.

``parse_dump`` / ``iter_dump_records`` turn dump text into the format model (``RedoRecord`` with the
same op bodies the binary reader produces, ``fields`` empty); ``render_record`` / ``render_header`` /
``render_log`` write the model back as dump text in the layout of OpenLogReplicator's 12.2+ dumps
(``wide_scn=True``) or Oracle 11.2's (``wide_scn=False``), which ``parse_dump`` reads back.

Modules: ``parse`` (framing, records, public entry points), ``bodies`` (op bodies per opcode),
``rows`` (KTB / KDO / row data), ``headers`` (FILE HEADER), ``lines`` (line cursor, value grammars),
``render`` (model -> text).

Layer 2: imports errors, scn (layer 0) and format.model (layer 1) only.
"""

from redo_lib.dump.headers import DumpHeader
from redo_lib.dump.parse import DumpedLog, iter_dump_records, parse_dump
from redo_lib.dump.render import render_header, render_log, render_record

__all__ = [
    "DumpHeader",
    "DumpedLog",
    "iter_dump_records",
    "parse_dump",
    "render_header",
    "render_log",
    "render_record",
]
