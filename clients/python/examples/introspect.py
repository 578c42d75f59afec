"""Checks a session with sessions.v1 from Python (docs/integration.md, "Introspection").

Usage: PYTHONPATH=clients/python python3 clients/python/examples/introspect.py <address> <session token>
Prints the answer as one JSON line. Needs grpcio and protobuf (Debian:
python3-grpcio, python3-protobuf).
"""
import json
import sys

import grpc

from sessions.v1 import sessions_pb2, sessions_pb2_grpc


def introspect(address: str, token: str) -> dict:
    with grpc.insecure_channel(address) as channel:
        sessions = sessions_pb2_grpc.SessionsServiceStub(channel)
        answer = sessions.IntrospectSession(sessions_pb2.IntrospectSessionRequest(token=token), timeout=5)
        if not answer.active:
            return {"active": False}
        session = answer.session
        return {
            "active": True,
            "user_id": session.user_id,
            "session_id": session.session_id,
            "authentication_methods": list(session.authentication_methods),
            "second_factor": session.second_factor,
            "expires_at": session.expires_at.ToJsonString(),
        }


if __name__ == "__main__":
    print(json.dumps(introspect(sys.argv[1], sys.argv[2])))
