"""The vendor lane: the five real vendor CLIs run offline against a scripted model, as the judge of
what "exact" means, and the same scenarios run through compat-adapter on the embedded host."""
