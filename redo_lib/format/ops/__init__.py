"""Pure parse functions, one module per opcode family: fields of one change vector -> op body.

Every parser has the signature ``(fields, block_class, layout) -> OpBody``; ``format/opcodes.py``
maps ``(layer, code)`` to them.
"""
