"""A team's own signoff plugins, installed beside signoff (tests/outside_packages)."""
