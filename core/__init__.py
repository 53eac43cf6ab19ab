"""What every part of Mnemo shares and nothing else: the scope, the record model, the errors.

``proxy``, ``extractors`` and ``policies`` import from here; this package imports none of them
(tests/test_layering.py holds that).
"""
