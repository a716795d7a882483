"""Stand-ins for what cannot exist here: paid model APIs. Each speaks the real wire protocol, with the
documented error bodies, so the code under test meets them as it would meet the real ones."""
