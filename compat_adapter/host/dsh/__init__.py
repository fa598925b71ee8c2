"""The DeepSeek Harness wing: a real DSH 0.2.1 runtime reached through the wire host.

``bundle/`` is the DSH bundle users add (``dsh plugin --profile <p> add file:<bundle>``: its Cordis
plugin spawns ``compat-adapter serve --stdio`` and provides the ``compatAdapter`` service);
``surface`` maps a live composition report onto a Surface and registers the ``dsh`` host kind;
``records`` reads DSH's v4 session records in the contract's vocabulary; ``host.DshHost`` is the
wire host with both fixed; ``lane`` boots the real runtime through the official SDK for tests.
"""
