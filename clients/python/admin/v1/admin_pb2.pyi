from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class AddOrganizationMemberRequest(_message.Message):
    __slots__ = ["organization_id", "role", "user_id"]
    ORGANIZATION_ID_FIELD_NUMBER: _ClassVar[int]
    ROLE_FIELD_NUMBER: _ClassVar[int]
    USER_ID_FIELD_NUMBER: _ClassVar[int]
    organization_id: str
    role: str
    user_id: str
    def __init__(self, organization_id: _Optional[str] = ..., user_id: _Optional[str] = ..., role: _Optional[str] = ...) -> None: ...

class AddOrganizationMemberResponse(_message.Message):
    __slots__ = ["member"]
    MEMBER_FIELD_NUMBER: _ClassVar[int]
    member: OrganizationMember
    def __init__(self, member: _Optional[_Union[OrganizationMember, _Mapping]] = ...) -> None: ...

class AdminOrganization(_message.Message):
    __slots__ = ["created_at", "id", "member_count", "name", "slug", "sso_enforced"]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    MEMBER_COUNT_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    SLUG_FIELD_NUMBER: _ClassVar[int]
    SSO_ENFORCED_FIELD_NUMBER: _ClassVar[int]
    created_at: _timestamp_pb2.Timestamp
    id: str
    member_count: int
    name: str
    slug: str
    sso_enforced: bool
    def __init__(self, id: _Optional[str] = ..., slug: _Optional[str] = ..., name: _Optional[str] = ..., created_at: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., member_count: _Optional[int] = ..., sso_enforced: bool = ...) -> None: ...

class AuditEntry(_message.Message):
    __slots__ = ["action", "at", "caller", "client_id", "id", "operator", "organization_id", "reason", "user_id"]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    AT_FIELD_NUMBER: _ClassVar[int]
    CALLER_FIELD_NUMBER: _ClassVar[int]
    CLIENT_ID_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    OPERATOR_FIELD_NUMBER: _ClassVar[int]
    ORGANIZATION_ID_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    USER_ID_FIELD_NUMBER: _ClassVar[int]
    action: str
    at: _timestamp_pb2.Timestamp
    caller: str
    client_id: str
    id: str
    operator: str
    organization_id: str
    reason: str
    user_id: str
    def __init__(self, id: _Optional[str] = ..., at: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., caller: _Optional[str] = ..., action: _Optional[str] = ..., user_id: _Optional[str] = ..., reason: _Optional[str] = ..., operator: _Optional[str] = ..., client_id: _Optional[str] = ..., organization_id: _Optional[str] = ...) -> None: ...

class Client(_message.Message):
    __slots__ = ["client_id", "created_at", "entry_json", "has_secret", "updated_at"]
    CLIENT_ID_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    ENTRY_JSON_FIELD_NUMBER: _ClassVar[int]
    HAS_SECRET_FIELD_NUMBER: _ClassVar[int]
    UPDATED_AT_FIELD_NUMBER: _ClassVar[int]
    client_id: str
    created_at: _timestamp_pb2.Timestamp
    entry_json: str
    has_secret: bool
    updated_at: _timestamp_pb2.Timestamp
    def __init__(self, client_id: _Optional[str] = ..., entry_json: _Optional[str] = ..., has_secret: bool = ..., created_at: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., updated_at: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class CreateClientRequest(_message.Message):
    __slots__ = ["entry_json"]
    ENTRY_JSON_FIELD_NUMBER: _ClassVar[int]
    entry_json: str
    def __init__(self, entry_json: _Optional[str] = ...) -> None: ...

class CreateClientResponse(_message.Message):
    __slots__ = ["client", "client_secret"]
    CLIENT_FIELD_NUMBER: _ClassVar[int]
    CLIENT_SECRET_FIELD_NUMBER: _ClassVar[int]
    client: Client
    client_secret: str
    def __init__(self, client: _Optional[_Union[Client, _Mapping]] = ..., client_secret: _Optional[str] = ...) -> None: ...

class CreateOrganizationRequest(_message.Message):
    __slots__ = ["name", "owner_user_id", "slug"]
    NAME_FIELD_NUMBER: _ClassVar[int]
    OWNER_USER_ID_FIELD_NUMBER: _ClassVar[int]
    SLUG_FIELD_NUMBER: _ClassVar[int]
    name: str
    owner_user_id: str
    slug: str
    def __init__(self, name: _Optional[str] = ..., slug: _Optional[str] = ..., owner_user_id: _Optional[str] = ...) -> None: ...

class CreateOrganizationResponse(_message.Message):
    __slots__ = ["organization"]
    ORGANIZATION_FIELD_NUMBER: _ClassVar[int]
    organization: AdminOrganization
    def __init__(self, organization: _Optional[_Union[AdminOrganization, _Mapping]] = ...) -> None: ...

class DeleteClientRequest(_message.Message):
    __slots__ = ["client_id"]
    CLIENT_ID_FIELD_NUMBER: _ClassVar[int]
    client_id: str
    def __init__(self, client_id: _Optional[str] = ...) -> None: ...

class DeleteClientResponse(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class DeleteOrganizationRequest(_message.Message):
    __slots__ = ["organization_id"]
    ORGANIZATION_ID_FIELD_NUMBER: _ClassVar[int]
    organization_id: str
    def __init__(self, organization_id: _Optional[str] = ...) -> None: ...

class DeleteOrganizationResponse(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class DeleteUserRequest(_message.Message):
    __slots__ = ["user_id"]
    USER_ID_FIELD_NUMBER: _ClassVar[int]
    user_id: str
    def __init__(self, user_id: _Optional[str] = ...) -> None: ...

class DeleteUserResponse(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class DisableUserRequest(_message.Message):
    __slots__ = ["reason", "user_id"]
    REASON_FIELD_NUMBER: _ClassVar[int]
    USER_ID_FIELD_NUMBER: _ClassVar[int]
    reason: str
    user_id: str
    def __init__(self, user_id: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...

class DisableUserResponse(_message.Message):
    __slots__ = ["user"]
    USER_FIELD_NUMBER: _ClassVar[int]
    user: User
    def __init__(self, user: _Optional[_Union[User, _Mapping]] = ...) -> None: ...

class EnableUserRequest(_message.Message):
    __slots__ = ["user_id"]
    USER_ID_FIELD_NUMBER: _ClassVar[int]
    user_id: str
    def __init__(self, user_id: _Optional[str] = ...) -> None: ...

class EnableUserResponse(_message.Message):
    __slots__ = ["user"]
    USER_FIELD_NUMBER: _ClassVar[int]
    user: User
    def __init__(self, user: _Optional[_Union[User, _Mapping]] = ...) -> None: ...

class FindUserRequest(_message.Message):
    __slots__ = ["email", "handle", "id"]
    EMAIL_FIELD_NUMBER: _ClassVar[int]
    HANDLE_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    email: str
    handle: str
    id: str
    def __init__(self, id: _Optional[str] = ..., email: _Optional[str] = ..., handle: _Optional[str] = ...) -> None: ...

class FindUserResponse(_message.Message):
    __slots__ = ["user"]
    USER_FIELD_NUMBER: _ClassVar[int]
    user: User
    def __init__(self, user: _Optional[_Union[User, _Mapping]] = ...) -> None: ...

class ListAuditLogRequest(_message.Message):
    __slots__ = ["page_size", "page_token", "user_id"]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    USER_ID_FIELD_NUMBER: _ClassVar[int]
    page_size: int
    page_token: str
    user_id: str
    def __init__(self, user_id: _Optional[str] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class ListAuditLogResponse(_message.Message):
    __slots__ = ["entries", "next_page_token"]
    ENTRIES_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    entries: _containers.RepeatedCompositeFieldContainer[AuditEntry]
    next_page_token: str
    def __init__(self, entries: _Optional[_Iterable[_Union[AuditEntry, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class ListClientsRequest(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class ListClientsResponse(_message.Message):
    __slots__ = ["clients"]
    CLIENTS_FIELD_NUMBER: _ClassVar[int]
    clients: _containers.RepeatedCompositeFieldContainer[Client]
    def __init__(self, clients: _Optional[_Iterable[_Union[Client, _Mapping]]] = ...) -> None: ...

class ListOrganizationsRequest(_message.Message):
    __slots__ = ["page_size", "page_token"]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    page_size: int
    page_token: str
    def __init__(self, page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class ListOrganizationsResponse(_message.Message):
    __slots__ = ["next_page_token", "organizations"]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    ORGANIZATIONS_FIELD_NUMBER: _ClassVar[int]
    next_page_token: str
    organizations: _containers.RepeatedCompositeFieldContainer[AdminOrganization]
    def __init__(self, organizations: _Optional[_Iterable[_Union[AdminOrganization, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class ListUsersRequest(_message.Message):
    __slots__ = ["page_size", "page_token"]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    page_size: int
    page_token: str
    def __init__(self, page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class ListUsersResponse(_message.Message):
    __slots__ = ["next_page_token", "users"]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    USERS_FIELD_NUMBER: _ClassVar[int]
    next_page_token: str
    users: _containers.RepeatedCompositeFieldContainer[User]
    def __init__(self, users: _Optional[_Iterable[_Union[User, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class OrganizationMember(_message.Message):
    __slots__ = ["joined_at", "organization_id", "role", "source", "user_id"]
    JOINED_AT_FIELD_NUMBER: _ClassVar[int]
    ORGANIZATION_ID_FIELD_NUMBER: _ClassVar[int]
    ROLE_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    USER_ID_FIELD_NUMBER: _ClassVar[int]
    joined_at: _timestamp_pb2.Timestamp
    organization_id: str
    role: str
    source: str
    user_id: str
    def __init__(self, organization_id: _Optional[str] = ..., user_id: _Optional[str] = ..., role: _Optional[str] = ..., source: _Optional[str] = ..., joined_at: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class RemoveOrganizationMemberRequest(_message.Message):
    __slots__ = ["organization_id", "user_id"]
    ORGANIZATION_ID_FIELD_NUMBER: _ClassVar[int]
    USER_ID_FIELD_NUMBER: _ClassVar[int]
    organization_id: str
    user_id: str
    def __init__(self, organization_id: _Optional[str] = ..., user_id: _Optional[str] = ...) -> None: ...

class RemoveOrganizationMemberResponse(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class RevokeAllSessionsRequest(_message.Message):
    __slots__ = ["user_id"]
    USER_ID_FIELD_NUMBER: _ClassVar[int]
    user_id: str
    def __init__(self, user_id: _Optional[str] = ...) -> None: ...

class RevokeAllSessionsResponse(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class RotateClientSecretRequest(_message.Message):
    __slots__ = ["client_id"]
    CLIENT_ID_FIELD_NUMBER: _ClassVar[int]
    client_id: str
    def __init__(self, client_id: _Optional[str] = ...) -> None: ...

class RotateClientSecretResponse(_message.Message):
    __slots__ = ["client_secret"]
    CLIENT_SECRET_FIELD_NUMBER: _ClassVar[int]
    client_secret: str
    def __init__(self, client_secret: _Optional[str] = ...) -> None: ...

class SendPasswordResetRequest(_message.Message):
    __slots__ = ["user_id"]
    USER_ID_FIELD_NUMBER: _ClassVar[int]
    user_id: str
    def __init__(self, user_id: _Optional[str] = ...) -> None: ...

class SendPasswordResetResponse(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class SetOrganizationSsoEnforcedRequest(_message.Message):
    __slots__ = ["organization_id", "sso_enforced"]
    ORGANIZATION_ID_FIELD_NUMBER: _ClassVar[int]
    SSO_ENFORCED_FIELD_NUMBER: _ClassVar[int]
    organization_id: str
    sso_enforced: bool
    def __init__(self, organization_id: _Optional[str] = ..., sso_enforced: bool = ...) -> None: ...

class SetOrganizationSsoEnforcedResponse(_message.Message):
    __slots__ = ["organization"]
    ORGANIZATION_FIELD_NUMBER: _ClassVar[int]
    organization: AdminOrganization
    def __init__(self, organization: _Optional[_Union[AdminOrganization, _Mapping]] = ...) -> None: ...

class UpdateClientRequest(_message.Message):
    __slots__ = ["client_id", "entry_json"]
    CLIENT_ID_FIELD_NUMBER: _ClassVar[int]
    ENTRY_JSON_FIELD_NUMBER: _ClassVar[int]
    client_id: str
    entry_json: str
    def __init__(self, client_id: _Optional[str] = ..., entry_json: _Optional[str] = ...) -> None: ...

class UpdateClientResponse(_message.Message):
    __slots__ = ["client", "client_secret"]
    CLIENT_FIELD_NUMBER: _ClassVar[int]
    CLIENT_SECRET_FIELD_NUMBER: _ClassVar[int]
    client: Client
    client_secret: str
    def __init__(self, client: _Optional[_Union[Client, _Mapping]] = ..., client_secret: _Optional[str] = ...) -> None: ...

class User(_message.Message):
    __slots__ = ["created_at", "disabled_at", "disabled_reason", "email", "email_verified_at", "handle", "has_password", "id"]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    DISABLED_AT_FIELD_NUMBER: _ClassVar[int]
    DISABLED_REASON_FIELD_NUMBER: _ClassVar[int]
    EMAIL_FIELD_NUMBER: _ClassVar[int]
    EMAIL_VERIFIED_AT_FIELD_NUMBER: _ClassVar[int]
    HANDLE_FIELD_NUMBER: _ClassVar[int]
    HAS_PASSWORD_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    created_at: _timestamp_pb2.Timestamp
    disabled_at: _timestamp_pb2.Timestamp
    disabled_reason: str
    email: str
    email_verified_at: _timestamp_pb2.Timestamp
    handle: str
    has_password: bool
    id: str
    def __init__(self, id: _Optional[str] = ..., handle: _Optional[str] = ..., email: _Optional[str] = ..., email_verified_at: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., has_password: bool = ..., created_at: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., disabled_at: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., disabled_reason: _Optional[str] = ...) -> None: ...
