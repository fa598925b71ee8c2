"""Qwen Code: one vendor unit (``vendors/qwen/unit.py``)."""
