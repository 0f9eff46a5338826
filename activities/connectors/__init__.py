"""Clients of outside systems (a tenant's helpdesk), each behind a circuit breaker."""
