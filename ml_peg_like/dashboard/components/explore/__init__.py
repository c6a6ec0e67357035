"""The Explore scatter (:mod:`.view`), the Compare radar and table (:mod:`.compare`) and what
every plot shares (:mod:`.plots`)."""
