"""Explorer panels added after the first seven: scenarios, compare, session."""
