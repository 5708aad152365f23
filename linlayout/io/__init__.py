"""Input and output: JSON (:mod:`.jsonio`), text (:mod:`.render`), code emission (:mod:`.emit`) and pictures (:mod:`.draw`).
"""
