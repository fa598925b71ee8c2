"""The embedded host: a faithful, network-free Python model of the DeepSeek Harness seams.

``memory.MemoryHost`` is the host; ``agent``, ``loop`` and ``tools`` drive scripted agents over
real tools; ``seams`` dispatches in the three modes; ``session`` keeps the log; ``bridges`` are its
own copies of DSH's official hook bridges.
"""
