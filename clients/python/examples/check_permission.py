"""Asks identity whether a user holds a permission in an organisation, with orgs.v1 from Python (docs/organisations.md).

Usage: PYTHONPATH=clients/python python3 clients/python/examples/check_permission.py <address> <user id> <organization id> <permission>
Prints the answer as one JSON line. Needs grpcio and protobuf (Debian:
python3-grpcio, python3-protobuf). The address is identity's platform
listener (ADMIN_GRPC_PORT). This example speaks plaintext, as `pnpm stack`
does; in production the listener takes only mutual TLS with a certificate
of the platform clients' CA named in ORGS_GRPC_ALLOWED_CALLERS: open the
channel with grpc.secure_channel(address, grpc.ssl_channel_credentials(
root_certificates=ca, private_key=key, certificate_chain=cert)) instead.
"""
import json
import sys

import grpc

from orgs.v1 import orgs_pb2, orgs_pb2_grpc


def check_permission(address: str, user_id: str, organization_id: str, permission: str) -> dict:
    with grpc.insecure_channel(address) as channel:
        access = orgs_pb2_grpc.OrganizationAccessServiceStub(channel)
        answer = access.CheckPermission(
            orgs_pb2.CheckPermissionRequest(user_id=user_id, organization_id=organization_id, permission=permission),
            timeout=5,
        )
        return {"allowed": answer.allowed, "role": answer.role}


if __name__ == "__main__":
    print(json.dumps(check_permission(*sys.argv[1:5])))
