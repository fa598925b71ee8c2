"""Permission rules: each vendor's allow / ask / deny rules on tool calls, read from its files,
graded like hooks and enforced at the host's tool pre-execute seam.

``model`` (the frozen rule model), ``language`` (what a vendor's unit declares: its rule language),
``engine`` (precedence, and how rules meet hooks), ``grade`` (a rule against a host surface),
``guard`` (the async edge: enforcement on the host), ``read`` (an importer's entry point).
"""
