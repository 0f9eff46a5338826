"""Registers the custom search attributes that runs are listed by.

The dev server, the time-skipping test server and a production cluster all accept
the operator call; registering an attribute that exists already is harmless.
"""

from __future__ import annotations

from temporalio.api.enums.v1 import IndexedValueType
from temporalio.api.operatorservice.v1 import (
    AddSearchAttributesRequest,
    ListSearchAttributesRequest,
)
from temporalio.client import Client
from temporalio.service import RPCError, RPCStatusCode

from workflows.contracts import PENDING_ATTRIBUTE, STATUS_ATTRIBUTE, TENANT_ATTRIBUTE

KEYWORD_ATTRIBUTES = (STATUS_ATTRIBUTE, TENANT_ATTRIBUTE)
KEYWORD_LIST_ATTRIBUTES = (PENDING_ATTRIBUTE,)
# Every attribute by its type, as the operator API (and `temporal operator
# search-attribute create --type`) names it.
SEARCH_ATTRIBUTES = {
    **{name: IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD for name in KEYWORD_ATTRIBUTES},
    **{name: IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD_LIST for name in KEYWORD_LIST_ATTRIBUTES},
}


async def ensure_search_attributes(client: Client, namespace: str) -> None:
    try:
        listed = await client.operator_service.list_search_attributes(
            ListSearchAttributesRequest(namespace=namespace)
        )
        existing = set(listed.custom_attributes)
    except RPCError as error:
        # The time-skipping test server cannot list attributes, but it can add them.
        if error.status != RPCStatusCode.UNIMPLEMENTED:
            raise
        existing = set()
    missing = {name: kind for name, kind in SEARCH_ATTRIBUTES.items() if name not in existing}
    if not missing:
        return
    try:
        await client.operator_service.add_search_attributes(
            AddSearchAttributesRequest(namespace=namespace, search_attributes=missing)
        )
    except RPCError as error:
        if error.status != RPCStatusCode.ALREADY_EXISTS:
            raise
