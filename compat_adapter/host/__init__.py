"""Agent hosts: the contract every host implements, and the two hosts that implement it.

The contract, shared by the core and both hosts:

* ``protocol`` — the :class:`~compat_adapter.host.protocol.Host` contract and its seam payloads;
* ``answers`` — what a seam's listener answers (the verdicts), re-exported by ``protocol``;
* ``surfaces`` — the published surfaces by name (``surface_named``), as plain data;
* ``offer`` — the ``tools/offer`` waterfall: the tools a request offers the model;
* ``sessionlog`` — the read side of a session log both hosts share;
* ``script`` — the scripted model's vocabulary, which both hosts' test drivers speak.

The hosts, each in its own wing and importing only the contract:

* ``embedded/`` — :class:`~compat_adapter.host.embedded.memory.MemoryHost`, the in-process model
  of the DeepSeek Harness seams, with its own copies of the official bridges;
* ``dsh/`` — :class:`~compat_adapter.host.dsh.host.DshHost`, a real DeepSeek Harness composition
  over the JSON-lines channel, with the plugin that runs inside it.
"""
