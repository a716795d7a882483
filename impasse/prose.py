"""What both readers of an agent's prose (the annotator and the operator) take the same way."""

from __future__ import annotations

# A full stop after an abbreviation ends no sentence ("e.g.", "i.e.", "z.B.", "etc.", "vs.", "bzw."):
# lookbehinds to put after a sentence-ending mark's own.
NOT_AFTER_ABBREVIATION = r"(?<!\b[A-Za-z]\.[A-Za-z]\.)(?<!\betc\.)(?<!\bvs\.)(?<!\bbzw\.)"
# A numbered list's "1." (at the text's start or a line's, or right after the colon that opens the list:
# "请：1. 打开…") is no sentence's end: the item goes on after it.
NOT_AFTER_LIST_NUMBER = r"(?<!^\d\.)(?<!\n\d\.)(?<!^\d\d\.)(?<!\n\d\d\.)(?<![:：]\d\.)(?<![:：] \d\.)"
# A Chinese or Japanese full stop (。！？) ends a sentence as a period does, with or without a space after it.
CJK_FULL_STOP = r"(?<=[。！？])\s*"
