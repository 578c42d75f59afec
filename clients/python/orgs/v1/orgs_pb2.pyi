from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

AUDIT_ACTOR_TYPE_ADMIN: AuditActorType
AUDIT_ACTOR_TYPE_SCIM: AuditActorType
AUDIT_ACTOR_TYPE_SYSTEM: AuditActorType
AUDIT_ACTOR_TYPE_UNSPECIFIED: AuditActorType
AUDIT_ACTOR_TYPE_USER: AuditActorType
DESCRIPTOR: _descriptor.FileDescriptor
DOMAIN_STATUS_PENDING: DomainStatus
DOMAIN_STATUS_UNSPECIFIED: DomainStatus
DOMAIN_STATUS_VERIFIED: DomainStatus
INVITATION_STATUS_ACCEPTED: InvitationStatus
INVITATION_STATUS_EXPIRED: InvitationStatus
INVITATION_STATUS_PENDING: InvitationStatus
INVITATION_STATUS_REVOKED: InvitationStatus
INVITATION_STATUS_UNSPECIFIED: InvitationStatus
MEMBERSHIP_SOURCE_ADMIN: MembershipSource
MEMBERSHIP_SOURCE_CREATOR: MembershipSource
MEMBERSHIP_SOURCE_INVITATION: MembershipSource
MEMBERSHIP_SOURCE_SCIM: MembershipSource
MEMBERSHIP_SOURCE_SSO: MembershipSource
MEMBERSHIP_SOURCE_UNSPECIFIED: MembershipSource

class AcceptInvitationRequest(_message.Message):
    __slots__ = ["token", "user_id"]
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    USER_ID_FIELD_NUMBER: _ClassVar[int]
    token: str
    user_id: str
    def __init__(self, token: _Optional[str] = ..., user_id: _Optional[str] = ...) -> None: ...

class AcceptInvitationResponse(_message.Message):
    __slots__ = ["organization"]
    ORGANIZATION_FIELD_NUMBER: _ClassVar[int]
    organization: Organization
    def __init__(self, organization: _Optional[_Union[Organization, _Mapping]] = ...) -> None: ...

class AddDomainRequest(_message.Message):
    __slots__ = ["actor_user_id", "domain", "organization_id"]
    ACTOR_USER_ID_FIELD_NUMBER: _ClassVar[int]
    DOMAIN_FIELD_NUMBER: _ClassVar[int]
    ORGANIZATION_ID_FIELD_NUMBER: _ClassVar[int]
    actor_user_id: str
    domain: str
    organization_id: str
    def __init__(self, actor_user_id: _Optional[str] = ..., organization_id: _Optional[str] = ..., domain: _Optional[str] = ...) -> None: ...

class AddDomainResponse(_message.Message):
    __slots__ = ["domain"]
    DOMAIN_FIELD_NUMBER: _ClassVar[int]
    domain: Domain
    def __init__(self, domain: _Optional[_Union[Domain, _Mapping]] = ...) -> None: ...

class AuditEntry(_message.Message):
    __slots__ = ["action", "actor_id", "actor_type", "created_at", "data_json", "hash", "id", "ip", "organization_id", "prev_hash", "seq", "target_id", "target_type", "user_agent"]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    ACTOR_ID_FIELD_NUMBER: _ClassVar[int]
    ACTOR_TYPE_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    DATA_JSON_FIELD_NUMBER: _ClassVar[int]
    HASH_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    IP_FIELD_NUMBER: _ClassVar[int]
    ORGANIZATION_ID_FIELD_NUMBER: _ClassVar[int]
    PREV_HASH_FIELD_NUMBER: _ClassVar[int]
    SEQ_FIELD_NUMBER: _ClassVar[int]
    TARGET_ID_FIELD_NUMBER: _ClassVar[int]
    TARGET_TYPE_FIELD_NUMBER: _ClassVar[int]
    USER_AGENT_FIELD_NUMBER: _ClassVar[int]
    action: str
    actor_id: str
    actor_type: AuditActorType
    created_at: _timestamp_pb2.Timestamp
    data_json: str
    hash: str
    id: str
    ip: str
    organization_id: str
    prev_hash: str
    seq: int
    target_id: str
    target_type: str
    user_agent: str
    def __init__(self, id: _Optional[str] = ..., organization_id: _Optional[str] = ..., seq: _Optional[int] = ..., action: _Optional[str] = ..., actor_type: _Optional[_Union[AuditActorType, str]] = ..., actor_id: _Optional[str] = ..., target_type: _Optional[str] = ..., target_id: _Optional[str] = ..., ip: _Optional[str] = ..., user_agent: _Optional[str] = ..., data_json: _Optional[str] = ..., created_at: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., prev_hash: _Optional[str] = ..., hash: _Optional[str] = ...) -> None: ...

class ChangeMemberRoleRequest(_message.Message):
    __slots__ = ["actor_user_id", "organization_id", "role", "user_id"]
    ACTOR_USER_ID_FIELD_NUMBER: _ClassVar[int]
    ORGANIZATION_ID_FIELD_NUMBER: _ClassVar[int]
    ROLE_FIELD_NUMBER: _ClassVar[int]
    USER_ID_FIELD_NUMBER: _ClassVar[int]
    actor_user_id: str
    organization_id: str
    role: str
    user_id: str
    def __init__(self, actor_user_id: _Optional[str] = ..., organization_id: _Optional[str] = ..., user_id: _Optional[str] = ..., role: _Optional[str] = ...) -> None: ...

class ChangeMemberRoleResponse(_message.Message):
    __slots__ = ["member"]
    MEMBER_FIELD_NUMBER: _ClassVar[int]
    member: Member
    def __init__(self, member: _Optional[_Union[Member, _Mapping]] = ...) -> None: ...

class CheckPermissionRequest(_message.Message):
    __slots__ = ["organization_id", "permission", "user_id"]
    ORGANIZATION_ID_FIELD_NUMBER: _ClassVar[int]
    PERMISSION_FIELD_NUMBER: _ClassVar[int]
    USER_ID_FIELD_NUMBER: _ClassVar[int]
    organization_id: str
    permission: str
    user_id: str
    def __init__(self, user_id: _Optional[str] = ..., organization_id: _Optional[str] = ..., permission: _Optional[str] = ...) -> None: ...

class CheckPermissionResponse(_message.Message):
    __slots__ = ["allowed", "role"]
    ALLOWED_FIELD_NUMBER: _ClassVar[int]
    ROLE_FIELD_NUMBER: _ClassVar[int]
    allowed: bool
    role: str
    def __init__(self, allowed: bool = ..., role: _Optional[str] = ...) -> None: ...

class CreateInvitationRequest(_message.Message):
    __slots__ = ["actor_user_id", "email", "organization_id", "role"]
    ACTOR_USER_ID_FIELD_NUMBER: _ClassVar[int]
    EMAIL_FIELD_NUMBER: _ClassVar[int]
    ORGANIZATION_ID_FIELD_NUMBER: _ClassVar[int]
    ROLE_FIELD_NUMBER: _ClassVar[int]
    actor_user_id: str
    email: str
    organization_id: str
    role: str
    def __init__(self, actor_user_id: _Optional[str] = ..., organization_id: _Optional[str] = ..., email: _Optional[str] = ..., role: _Optional[str] = ...) -> None: ...

class CreateInvitationResponse(_message.Message):
    __slots__ = ["invitation"]
    INVITATION_FIELD_NUMBER: _ClassVar[int]
    invitation: Invitation
    def __init__(self, invitation: _Optional[_Union[Invitation, _Mapping]] = ...) -> None: ...

class CreateOrganizationRequest(_message.Message):
    __slots__ = ["actor_user_id", "name", "slug"]
    ACTOR_USER_ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    SLUG_FIELD_NUMBER: _ClassVar[int]
    actor_user_id: str
    name: str
    slug: str
    def __init__(self, actor_user_id: _Optional[str] = ..., name: _Optional[str] = ..., slug: _Optional[str] = ...) -> None: ...

class CreateOrganizationResponse(_message.Message):
    __slots__ = ["organization"]
    ORGANIZATION_FIELD_NUMBER: _ClassVar[int]
    organization: Organization
    def __init__(self, organization: _Optional[_Union[Organization, _Mapping]] = ...) -> None: ...

class CreateRoleRequest(_message.Message):
    __slots__ = ["actor_user_id", "name", "organization_id", "permissions"]
    ACTOR_USER_ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    ORGANIZATION_ID_FIELD_NUMBER: _ClassVar[int]
    PERMISSIONS_FIELD_NUMBER: _ClassVar[int]
    actor_user_id: str
    name: str
    organization_id: str
    permissions: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, actor_user_id: _Optional[str] = ..., organization_id: _Optional[str] = ..., name: _Optional[str] = ..., permissions: _Optional[_Iterable[str]] = ...) -> None: ...

class CreateRoleResponse(_message.Message):
    __slots__ = ["role"]
    ROLE_FIELD_NUMBER: _ClassVar[int]
    role: Role
    def __init__(self, role: _Optional[_Union[Role, _Mapping]] = ...) -> None: ...

class CreateWebhookRequest(_message.Message):
    __slots__ = ["actor_user_id", "description", "events", "organization_id", "url"]
    ACTOR_USER_ID_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    ORGANIZATION_ID_FIELD_NUMBER: _ClassVar[int]
    URL_FIELD_NUMBER: _ClassVar[int]
    actor_user_id: str
    description: str
    events: _containers.RepeatedScalarFieldContainer[str]
    organization_id: str
    url: str
    def __init__(self, actor_user_id: _Optional[str] = ..., organization_id: _Optional[str] = ..., url: _Optional[str] = ..., events: _Optional[_Iterable[str]] = ..., description: _Optional[str] = ...) -> None: ...

class CreateWebhookResponse(_message.Message):
    __slots__ = ["secret", "webhook"]
    SECRET_FIELD_NUMBER: _ClassVar[int]
    WEBHOOK_FIELD_NUMBER: _ClassVar[int]
    secret: str
    webhook: Webhook
    def __init__(self, webhook: _Optional[_Union[Webhook, _Mapping]] = ..., secret: _Optional[str] = ...) -> None: ...

class DeleteOrganizationRequest(_message.Message):
    __slots__ = ["actor_user_id", "organization_id"]
    ACTOR_USER_ID_FIELD_NUMBER: _ClassVar[int]
    ORGANIZATION_ID_FIELD_NUMBER: _ClassVar[int]
    actor_user_id: str
    organization_id: str
    def __init__(self, actor_user_id: _Optional[str] = ..., organization_id: _Optional[str] = ...) -> None: ...

class DeleteOrganizationResponse(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class DeleteRoleRequest(_message.Message):
    __slots__ = ["actor_user_id", "name", "organization_id"]
    ACTOR_USER_ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    ORGANIZATION_ID_FIELD_NUMBER: _ClassVar[int]
    actor_user_id: str
    name: str
    organization_id: str
    def __init__(self, actor_user_id: _Optional[str] = ..., organization_id: _Optional[str] = ..., name: _Optional[str] = ...) -> None: ...

class DeleteRoleResponse(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class DeleteWebhookRequest(_message.Message):
    __slots__ = ["actor_user_id", "organization_id", "webhook_id"]
    ACTOR_USER_ID_FIELD_NUMBER: _ClassVar[int]
    ORGANIZATION_ID_FIELD_NUMBER: _ClassVar[int]
    WEBHOOK_ID_FIELD_NUMBER: _ClassVar[int]
    actor_user_id: str
    organization_id: str
    webhook_id: str
    def __init__(self, actor_user_id: _Optional[str] = ..., organization_id: _Optional[str] = ..., webhook_id: _Optional[str] = ...) -> None: ...

class DeleteWebhookResponse(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class Domain(_message.Message):
    __slots__ = ["created_at", "domain", "status", "verification_name", "verification_value", "verified_at"]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    DOMAIN_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    VERIFICATION_NAME_FIELD_NUMBER: _ClassVar[int]
    VERIFICATION_VALUE_FIELD_NUMBER: _ClassVar[int]
    VERIFIED_AT_FIELD_NUMBER: _ClassVar[int]
    created_at: _timestamp_pb2.Timestamp
    domain: str
    status: DomainStatus
    verification_name: str
    verification_value: str
    verified_at: _timestamp_pb2.Timestamp
    def __init__(self, domain: _Optional[str] = ..., status: _Optional[_Union[DomainStatus, str]] = ..., verification_name: _Optional[str] = ..., verification_value: _Optional[str] = ..., created_at: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., verified_at: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class ExportAuditLogRequest(_message.Message):
    __slots__ = ["actor_user_id", "after_seq", "organization_id", "since", "until"]
    ACTOR_USER_ID_FIELD_NUMBER: _ClassVar[int]
    AFTER_SEQ_FIELD_NUMBER: _ClassVar[int]
    ORGANIZATION_ID_FIELD_NUMBER: _ClassVar[int]
    SINCE_FIELD_NUMBER: _ClassVar[int]
    UNTIL_FIELD_NUMBER: _ClassVar[int]
    actor_user_id: str
    after_seq: int
    organization_id: str
    since: _timestamp_pb2.Timestamp
    until: _timestamp_pb2.Timestamp
    def __init__(self, actor_user_id: _Optional[str] = ..., organization_id: _Optional[str] = ..., after_seq: _Optional[int] = ..., since: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., until: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class ExportAuditLogResponse(_message.Message):
    __slots__ = ["done", "entries"]
    DONE_FIELD_NUMBER: _ClassVar[int]
    ENTRIES_FIELD_NUMBER: _ClassVar[int]
    done: bool
    entries: _containers.RepeatedCompositeFieldContainer[AuditEntry]
    def __init__(self, entries: _Optional[_Iterable[_Union[AuditEntry, _Mapping]]] = ..., done: bool = ...) -> None: ...

class GetDomainRequest(_message.Message):
    __slots__ = ["actor_user_id", "domain", "organization_id"]
    ACTOR_USER_ID_FIELD_NUMBER: _ClassVar[int]
    DOMAIN_FIELD_NUMBER: _ClassVar[int]
    ORGANIZATION_ID_FIELD_NUMBER: _ClassVar[int]
    actor_user_id: str
    domain: str
    organization_id: str
    def __init__(self, actor_user_id: _Optional[str] = ..., organization_id: _Optional[str] = ..., domain: _Optional[str] = ...) -> None: ...

class GetDomainResponse(_message.Message):
    __slots__ = ["domain"]
    DOMAIN_FIELD_NUMBER: _ClassVar[int]
    domain: Domain
    def __init__(self, domain: _Optional[_Union[Domain, _Mapping]] = ...) -> None: ...

class GetMembershipRequest(_message.Message):
    __slots__ = ["organization", "user_id"]
    ORGANIZATION_FIELD_NUMBER: _ClassVar[int]
    USER_ID_FIELD_NUMBER: _ClassVar[int]
    organization: str
    user_id: str
    def __init__(self, user_id: _Optional[str] = ..., organization: _Optional[str] = ...) -> None: ...

class GetMembershipResponse(_message.Message):
    __slots__ = ["found", "organization"]
    FOUND_FIELD_NUMBER: _ClassVar[int]
    ORGANIZATION_FIELD_NUMBER: _ClassVar[int]
    found: bool
    organization: Organization
    def __init__(self, found: bool = ..., organization: _Optional[_Union[Organization, _Mapping]] = ...) -> None: ...

class GetOrganizationRequest(_message.Message):
    __slots__ = ["actor_user_id", "organization"]
    ACTOR_USER_ID_FIELD_NUMBER: _ClassVar[int]
    ORGANIZATION_FIELD_NUMBER: _ClassVar[int]
    actor_user_id: str
    organization: str
    def __init__(self, actor_user_id: _Optional[str] = ..., organization: _Optional[str] = ...) -> None: ...

class GetOrganizationResponse(_message.Message):
    __slots__ = ["organization"]
    ORGANIZATION_FIELD_NUMBER: _ClassVar[int]
    organization: Organization
    def __init__(self, organization: _Optional[_Union[Organization, _Mapping]] = ...) -> None: ...

class GetRoleRequest(_message.Message):
    __slots__ = ["actor_user_id", "name", "organization_id"]
    ACTOR_USER_ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    ORGANIZATION_ID_FIELD_NUMBER: _ClassVar[int]
    actor_user_id: str
    name: str
    organization_id: str
    def __init__(self, actor_user_id: _Optional[str] = ..., organization_id: _Optional[str] = ..., name: _Optional[str] = ...) -> None: ...

class GetRoleResponse(_message.Message):
    __slots__ = ["role"]
    ROLE_FIELD_NUMBER: _ClassVar[int]
    role: Role
    def __init__(self, role: _Optional[_Union[Role, _Mapping]] = ...) -> None: ...

class GetWebhookRequest(_message.Message):
    __slots__ = ["actor_user_id", "organization_id", "webhook_id"]
    ACTOR_USER_ID_FIELD_NUMBER: _ClassVar[int]
    ORGANIZATION_ID_FIELD_NUMBER: _ClassVar[int]
    WEBHOOK_ID_FIELD_NUMBER: _ClassVar[int]
    actor_user_id: str
    organization_id: str
    webhook_id: str
    def __init__(self, actor_user_id: _Optional[str] = ..., organization_id: _Optional[str] = ..., webhook_id: _Optional[str] = ...) -> None: ...

class GetWebhookResponse(_message.Message):
    __slots__ = ["webhook"]
    WEBHOOK_FIELD_NUMBER: _ClassVar[int]
    webhook: Webhook
    def __init__(self, webhook: _Optional[_Union[Webhook, _Mapping]] = ...) -> None: ...

class Invitation(_message.Message):
    __slots__ = ["created_at", "email", "expires_at", "id", "invited_by", "role", "status"]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    EMAIL_FIELD_NUMBER: _ClassVar[int]
    EXPIRES_AT_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    INVITED_BY_FIELD_NUMBER: _ClassVar[int]
    ROLE_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    created_at: _timestamp_pb2.Timestamp
    email: str
    expires_at: _timestamp_pb2.Timestamp
    id: str
    invited_by: str
    role: str
    status: InvitationStatus
    def __init__(self, id: _Optional[str] = ..., email: _Optional[str] = ..., role: _Optional[str] = ..., status: _Optional[_Union[InvitationStatus, str]] = ..., invited_by: _Optional[str] = ..., created_at: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., expires_at: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class ListAuditLogRequest(_message.Message):
    __slots__ = ["action", "actor_id", "actor_user_id", "cursor", "limit", "organization_id", "since", "until"]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    ACTOR_ID_FIELD_NUMBER: _ClassVar[int]
    ACTOR_USER_ID_FIELD_NUMBER: _ClassVar[int]
    CURSOR_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    ORGANIZATION_ID_FIELD_NUMBER: _ClassVar[int]
    SINCE_FIELD_NUMBER: _ClassVar[int]
    UNTIL_FIELD_NUMBER: _ClassVar[int]
    action: str
    actor_id: str
    actor_user_id: str
    cursor: str
    limit: int
    organization_id: str
    since: _timestamp_pb2.Timestamp
    until: _timestamp_pb2.Timestamp
    def __init__(self, actor_user_id: _Optional[str] = ..., organization_id: _Optional[str] = ..., limit: _Optional[int] = ..., cursor: _Optional[str] = ..., action: _Optional[str] = ..., actor_id: _Optional[str] = ..., since: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., until: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class ListAuditLogResponse(_message.Message):
    __slots__ = ["entries", "next_cursor"]
    ENTRIES_FIELD_NUMBER: _ClassVar[int]
    NEXT_CURSOR_FIELD_NUMBER: _ClassVar[int]
    entries: _containers.RepeatedCompositeFieldContainer[AuditEntry]
    next_cursor: str
    def __init__(self, entries: _Optional[_Iterable[_Union[AuditEntry, _Mapping]]] = ..., next_cursor: _Optional[str] = ...) -> None: ...

class ListDomainsRequest(_message.Message):
    __slots__ = ["actor_user_id", "organization_id"]
    ACTOR_USER_ID_FIELD_NUMBER: _ClassVar[int]
    ORGANIZATION_ID_FIELD_NUMBER: _ClassVar[int]
    actor_user_id: str
    organization_id: str
    def __init__(self, actor_user_id: _Optional[str] = ..., organization_id: _Optional[str] = ...) -> None: ...

class ListDomainsResponse(_message.Message):
    __slots__ = ["domains"]
    DOMAINS_FIELD_NUMBER: _ClassVar[int]
    domains: _containers.RepeatedCompositeFieldContainer[Domain]
    def __init__(self, domains: _Optional[_Iterable[_Union[Domain, _Mapping]]] = ...) -> None: ...

class ListInvitationsRequest(_message.Message):
    __slots__ = ["actor_user_id", "cursor", "limit", "organization_id", "status"]
    ACTOR_USER_ID_FIELD_NUMBER: _ClassVar[int]
    CURSOR_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    ORGANIZATION_ID_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    actor_user_id: str
    cursor: str
    limit: int
    organization_id: str
    status: InvitationStatus
    def __init__(self, actor_user_id: _Optional[str] = ..., organization_id: _Optional[str] = ..., status: _Optional[_Union[InvitationStatus, str]] = ..., limit: _Optional[int] = ..., cursor: _Optional[str] = ...) -> None: ...

class ListInvitationsResponse(_message.Message):
    __slots__ = ["invitations", "next_cursor"]
    INVITATIONS_FIELD_NUMBER: _ClassVar[int]
    NEXT_CURSOR_FIELD_NUMBER: _ClassVar[int]
    invitations: _containers.RepeatedCompositeFieldContainer[Invitation]
    next_cursor: str
    def __init__(self, invitations: _Optional[_Iterable[_Union[Invitation, _Mapping]]] = ..., next_cursor: _Optional[str] = ...) -> None: ...

class ListMembersRequest(_message.Message):
    __slots__ = ["actor_user_id", "cursor", "limit", "organization_id"]
    ACTOR_USER_ID_FIELD_NUMBER: _ClassVar[int]
    CURSOR_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    ORGANIZATION_ID_FIELD_NUMBER: _ClassVar[int]
    actor_user_id: str
    cursor: str
    limit: int
    organization_id: str
    def __init__(self, actor_user_id: _Optional[str] = ..., organization_id: _Optional[str] = ..., limit: _Optional[int] = ..., cursor: _Optional[str] = ...) -> None: ...

class ListMembersResponse(_message.Message):
    __slots__ = ["members", "next_cursor"]
    MEMBERS_FIELD_NUMBER: _ClassVar[int]
    NEXT_CURSOR_FIELD_NUMBER: _ClassVar[int]
    members: _containers.RepeatedCompositeFieldContainer[Member]
    next_cursor: str
    def __init__(self, members: _Optional[_Iterable[_Union[Member, _Mapping]]] = ..., next_cursor: _Optional[str] = ...) -> None: ...

class ListMembershipsRequest(_message.Message):
    __slots__ = ["user_id"]
    USER_ID_FIELD_NUMBER: _ClassVar[int]
    user_id: str
    def __init__(self, user_id: _Optional[str] = ...) -> None: ...

class ListMembershipsResponse(_message.Message):
    __slots__ = ["organizations"]
    ORGANIZATIONS_FIELD_NUMBER: _ClassVar[int]
    organizations: _containers.RepeatedCompositeFieldContainer[Organization]
    def __init__(self, organizations: _Optional[_Iterable[_Union[Organization, _Mapping]]] = ...) -> None: ...

class ListOrganizationMembersRequest(_message.Message):
    __slots__ = ["cursor", "limit", "organization_id"]
    CURSOR_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    ORGANIZATION_ID_FIELD_NUMBER: _ClassVar[int]
    cursor: str
    limit: int
    organization_id: str
    def __init__(self, organization_id: _Optional[str] = ..., limit: _Optional[int] = ..., cursor: _Optional[str] = ...) -> None: ...

class ListOrganizationMembersResponse(_message.Message):
    __slots__ = ["members", "next_cursor"]
    MEMBERS_FIELD_NUMBER: _ClassVar[int]
    NEXT_CURSOR_FIELD_NUMBER: _ClassVar[int]
    members: _containers.RepeatedCompositeFieldContainer[Member]
    next_cursor: str
    def __init__(self, members: _Optional[_Iterable[_Union[Member, _Mapping]]] = ..., next_cursor: _Optional[str] = ...) -> None: ...

class ListOrganizationsRequest(_message.Message):
    __slots__ = ["actor_user_id"]
    ACTOR_USER_ID_FIELD_NUMBER: _ClassVar[int]
    actor_user_id: str
    def __init__(self, actor_user_id: _Optional[str] = ...) -> None: ...

class ListOrganizationsResponse(_message.Message):
    __slots__ = ["organizations"]
    ORGANIZATIONS_FIELD_NUMBER: _ClassVar[int]
    organizations: _containers.RepeatedCompositeFieldContainer[Organization]
    def __init__(self, organizations: _Optional[_Iterable[_Union[Organization, _Mapping]]] = ...) -> None: ...

class ListRolesRequest(_message.Message):
    __slots__ = ["actor_user_id", "organization_id"]
    ACTOR_USER_ID_FIELD_NUMBER: _ClassVar[int]
    ORGANIZATION_ID_FIELD_NUMBER: _ClassVar[int]
    actor_user_id: str
    organization_id: str
    def __init__(self, actor_user_id: _Optional[str] = ..., organization_id: _Optional[str] = ...) -> None: ...

class ListRolesResponse(_message.Message):
    __slots__ = ["roles"]
    ROLES_FIELD_NUMBER: _ClassVar[int]
    roles: _containers.RepeatedCompositeFieldContainer[Role]
    def __init__(self, roles: _Optional[_Iterable[_Union[Role, _Mapping]]] = ...) -> None: ...

class ListUserMembershipsRequest(_message.Message):
    __slots__ = ["user_id"]
    USER_ID_FIELD_NUMBER: _ClassVar[int]
    user_id: str
    def __init__(self, user_id: _Optional[str] = ...) -> None: ...

class ListUserMembershipsResponse(_message.Message):
    __slots__ = ["organizations"]
    ORGANIZATIONS_FIELD_NUMBER: _ClassVar[int]
    organizations: _containers.RepeatedCompositeFieldContainer[Organization]
    def __init__(self, organizations: _Optional[_Iterable[_Union[Organization, _Mapping]]] = ...) -> None: ...

class ListWebhookDeliveriesRequest(_message.Message):
    __slots__ = ["actor_user_id", "cursor", "limit", "organization_id", "webhook_id"]
    ACTOR_USER_ID_FIELD_NUMBER: _ClassVar[int]
    CURSOR_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    ORGANIZATION_ID_FIELD_NUMBER: _ClassVar[int]
    WEBHOOK_ID_FIELD_NUMBER: _ClassVar[int]
    actor_user_id: str
    cursor: str
    limit: int
    organization_id: str
    webhook_id: str
    def __init__(self, actor_user_id: _Optional[str] = ..., organization_id: _Optional[str] = ..., webhook_id: _Optional[str] = ..., limit: _Optional[int] = ..., cursor: _Optional[str] = ...) -> None: ...

class ListWebhookDeliveriesResponse(_message.Message):
    __slots__ = ["deliveries", "next_cursor"]
    DELIVERIES_FIELD_NUMBER: _ClassVar[int]
    NEXT_CURSOR_FIELD_NUMBER: _ClassVar[int]
    deliveries: _containers.RepeatedCompositeFieldContainer[WebhookDelivery]
    next_cursor: str
    def __init__(self, deliveries: _Optional[_Iterable[_Union[WebhookDelivery, _Mapping]]] = ..., next_cursor: _Optional[str] = ...) -> None: ...

class ListWebhooksRequest(_message.Message):
    __slots__ = ["actor_user_id", "organization_id"]
    ACTOR_USER_ID_FIELD_NUMBER: _ClassVar[int]
    ORGANIZATION_ID_FIELD_NUMBER: _ClassVar[int]
    actor_user_id: str
    organization_id: str
    def __init__(self, actor_user_id: _Optional[str] = ..., organization_id: _Optional[str] = ...) -> None: ...

class ListWebhooksResponse(_message.Message):
    __slots__ = ["webhooks"]
    WEBHOOKS_FIELD_NUMBER: _ClassVar[int]
    webhooks: _containers.RepeatedCompositeFieldContainer[Webhook]
    def __init__(self, webhooks: _Optional[_Iterable[_Union[Webhook, _Mapping]]] = ...) -> None: ...

class LookupInvitationRequest(_message.Message):
    __slots__ = ["token"]
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    token: str
    def __init__(self, token: _Optional[str] = ...) -> None: ...

class LookupInvitationResponse(_message.Message):
    __slots__ = ["email", "organization_id", "organization_name", "organization_slug", "role"]
    EMAIL_FIELD_NUMBER: _ClassVar[int]
    ORGANIZATION_ID_FIELD_NUMBER: _ClassVar[int]
    ORGANIZATION_NAME_FIELD_NUMBER: _ClassVar[int]
    ORGANIZATION_SLUG_FIELD_NUMBER: _ClassVar[int]
    ROLE_FIELD_NUMBER: _ClassVar[int]
    email: str
    organization_id: str
    organization_name: str
    organization_slug: str
    role: str
    def __init__(self, organization_id: _Optional[str] = ..., organization_slug: _Optional[str] = ..., organization_name: _Optional[str] = ..., email: _Optional[str] = ..., role: _Optional[str] = ...) -> None: ...

class Member(_message.Message):
    __slots__ = ["email", "handle", "joined_at", "role", "source", "user_id"]
    EMAIL_FIELD_NUMBER: _ClassVar[int]
    HANDLE_FIELD_NUMBER: _ClassVar[int]
    JOINED_AT_FIELD_NUMBER: _ClassVar[int]
    ROLE_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    USER_ID_FIELD_NUMBER: _ClassVar[int]
    email: str
    handle: str
    joined_at: _timestamp_pb2.Timestamp
    role: str
    source: MembershipSource
    user_id: str
    def __init__(self, user_id: _Optional[str] = ..., handle: _Optional[str] = ..., email: _Optional[str] = ..., role: _Optional[str] = ..., source: _Optional[_Union[MembershipSource, str]] = ..., joined_at: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class Organization(_message.Message):
    __slots__ = ["created_at", "id", "name", "permissions", "role", "slug", "sso_enforced"]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    PERMISSIONS_FIELD_NUMBER: _ClassVar[int]
    ROLE_FIELD_NUMBER: _ClassVar[int]
    SLUG_FIELD_NUMBER: _ClassVar[int]
    SSO_ENFORCED_FIELD_NUMBER: _ClassVar[int]
    created_at: _timestamp_pb2.Timestamp
    id: str
    name: str
    permissions: _containers.RepeatedScalarFieldContainer[str]
    role: str
    slug: str
    sso_enforced: bool
    def __init__(self, id: _Optional[str] = ..., slug: _Optional[str] = ..., name: _Optional[str] = ..., created_at: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., role: _Optional[str] = ..., permissions: _Optional[_Iterable[str]] = ..., sso_enforced: bool = ...) -> None: ...

class RemoveDomainRequest(_message.Message):
    __slots__ = ["actor_user_id", "domain", "organization_id"]
    ACTOR_USER_ID_FIELD_NUMBER: _ClassVar[int]
    DOMAIN_FIELD_NUMBER: _ClassVar[int]
    ORGANIZATION_ID_FIELD_NUMBER: _ClassVar[int]
    actor_user_id: str
    domain: str
    organization_id: str
    def __init__(self, actor_user_id: _Optional[str] = ..., organization_id: _Optional[str] = ..., domain: _Optional[str] = ...) -> None: ...

class RemoveDomainResponse(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class RemoveMemberRequest(_message.Message):
    __slots__ = ["actor_user_id", "organization_id", "user_id"]
    ACTOR_USER_ID_FIELD_NUMBER: _ClassVar[int]
    ORGANIZATION_ID_FIELD_NUMBER: _ClassVar[int]
    USER_ID_FIELD_NUMBER: _ClassVar[int]
    actor_user_id: str
    organization_id: str
    user_id: str
    def __init__(self, actor_user_id: _Optional[str] = ..., organization_id: _Optional[str] = ..., user_id: _Optional[str] = ...) -> None: ...

class RemoveMemberResponse(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class RetryWebhookDeliveryRequest(_message.Message):
    __slots__ = ["actor_user_id", "message_id", "organization_id", "webhook_id"]
    ACTOR_USER_ID_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_ID_FIELD_NUMBER: _ClassVar[int]
    ORGANIZATION_ID_FIELD_NUMBER: _ClassVar[int]
    WEBHOOK_ID_FIELD_NUMBER: _ClassVar[int]
    actor_user_id: str
    message_id: str
    organization_id: str
    webhook_id: str
    def __init__(self, actor_user_id: _Optional[str] = ..., organization_id: _Optional[str] = ..., webhook_id: _Optional[str] = ..., message_id: _Optional[str] = ...) -> None: ...

class RetryWebhookDeliveryResponse(_message.Message):
    __slots__ = ["message_id"]
    MESSAGE_ID_FIELD_NUMBER: _ClassVar[int]
    message_id: str
    def __init__(self, message_id: _Optional[str] = ...) -> None: ...

class RevokeInvitationRequest(_message.Message):
    __slots__ = ["actor_user_id", "invitation_id", "organization_id"]
    ACTOR_USER_ID_FIELD_NUMBER: _ClassVar[int]
    INVITATION_ID_FIELD_NUMBER: _ClassVar[int]
    ORGANIZATION_ID_FIELD_NUMBER: _ClassVar[int]
    actor_user_id: str
    invitation_id: str
    organization_id: str
    def __init__(self, actor_user_id: _Optional[str] = ..., organization_id: _Optional[str] = ..., invitation_id: _Optional[str] = ...) -> None: ...

class RevokeInvitationResponse(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class Role(_message.Message):
    __slots__ = ["built_in", "name", "permissions"]
    BUILT_IN_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    PERMISSIONS_FIELD_NUMBER: _ClassVar[int]
    built_in: bool
    name: str
    permissions: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, name: _Optional[str] = ..., permissions: _Optional[_Iterable[str]] = ..., built_in: bool = ...) -> None: ...

class RotateWebhookSecretRequest(_message.Message):
    __slots__ = ["actor_user_id", "organization_id", "webhook_id"]
    ACTOR_USER_ID_FIELD_NUMBER: _ClassVar[int]
    ORGANIZATION_ID_FIELD_NUMBER: _ClassVar[int]
    WEBHOOK_ID_FIELD_NUMBER: _ClassVar[int]
    actor_user_id: str
    organization_id: str
    webhook_id: str
    def __init__(self, actor_user_id: _Optional[str] = ..., organization_id: _Optional[str] = ..., webhook_id: _Optional[str] = ...) -> None: ...

class RotateWebhookSecretResponse(_message.Message):
    __slots__ = ["previous_expires_at", "secret", "webhook"]
    PREVIOUS_EXPIRES_AT_FIELD_NUMBER: _ClassVar[int]
    SECRET_FIELD_NUMBER: _ClassVar[int]
    WEBHOOK_FIELD_NUMBER: _ClassVar[int]
    previous_expires_at: _timestamp_pb2.Timestamp
    secret: str
    webhook: Webhook
    def __init__(self, webhook: _Optional[_Union[Webhook, _Mapping]] = ..., secret: _Optional[str] = ..., previous_expires_at: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class SendTestWebhookRequest(_message.Message):
    __slots__ = ["actor_user_id", "organization_id", "webhook_id"]
    ACTOR_USER_ID_FIELD_NUMBER: _ClassVar[int]
    ORGANIZATION_ID_FIELD_NUMBER: _ClassVar[int]
    WEBHOOK_ID_FIELD_NUMBER: _ClassVar[int]
    actor_user_id: str
    organization_id: str
    webhook_id: str
    def __init__(self, actor_user_id: _Optional[str] = ..., organization_id: _Optional[str] = ..., webhook_id: _Optional[str] = ...) -> None: ...

class SendTestWebhookResponse(_message.Message):
    __slots__ = ["message_id"]
    MESSAGE_ID_FIELD_NUMBER: _ClassVar[int]
    message_id: str
    def __init__(self, message_id: _Optional[str] = ...) -> None: ...

class UpdateOrganizationRequest(_message.Message):
    __slots__ = ["actor_user_id", "name", "organization_id", "slug", "sso_enforced"]
    ACTOR_USER_ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    ORGANIZATION_ID_FIELD_NUMBER: _ClassVar[int]
    SLUG_FIELD_NUMBER: _ClassVar[int]
    SSO_ENFORCED_FIELD_NUMBER: _ClassVar[int]
    actor_user_id: str
    name: str
    organization_id: str
    slug: str
    sso_enforced: bool
    def __init__(self, actor_user_id: _Optional[str] = ..., organization_id: _Optional[str] = ..., name: _Optional[str] = ..., slug: _Optional[str] = ..., sso_enforced: bool = ...) -> None: ...

class UpdateOrganizationResponse(_message.Message):
    __slots__ = ["organization"]
    ORGANIZATION_FIELD_NUMBER: _ClassVar[int]
    organization: Organization
    def __init__(self, organization: _Optional[_Union[Organization, _Mapping]] = ...) -> None: ...

class UpdateRoleRequest(_message.Message):
    __slots__ = ["actor_user_id", "name", "organization_id", "permissions"]
    ACTOR_USER_ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    ORGANIZATION_ID_FIELD_NUMBER: _ClassVar[int]
    PERMISSIONS_FIELD_NUMBER: _ClassVar[int]
    actor_user_id: str
    name: str
    organization_id: str
    permissions: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, actor_user_id: _Optional[str] = ..., organization_id: _Optional[str] = ..., name: _Optional[str] = ..., permissions: _Optional[_Iterable[str]] = ...) -> None: ...

class UpdateRoleResponse(_message.Message):
    __slots__ = ["role"]
    ROLE_FIELD_NUMBER: _ClassVar[int]
    role: Role
    def __init__(self, role: _Optional[_Union[Role, _Mapping]] = ...) -> None: ...

class UpdateWebhookRequest(_message.Message):
    __slots__ = ["actor_user_id", "description", "enabled", "events", "events_given", "organization_id", "url", "webhook_id"]
    ACTOR_USER_ID_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    ENABLED_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    EVENTS_GIVEN_FIELD_NUMBER: _ClassVar[int]
    ORGANIZATION_ID_FIELD_NUMBER: _ClassVar[int]
    URL_FIELD_NUMBER: _ClassVar[int]
    WEBHOOK_ID_FIELD_NUMBER: _ClassVar[int]
    actor_user_id: str
    description: str
    enabled: bool
    events: _containers.RepeatedScalarFieldContainer[str]
    events_given: bool
    organization_id: str
    url: str
    webhook_id: str
    def __init__(self, actor_user_id: _Optional[str] = ..., organization_id: _Optional[str] = ..., webhook_id: _Optional[str] = ..., url: _Optional[str] = ..., events_given: bool = ..., events: _Optional[_Iterable[str]] = ..., description: _Optional[str] = ..., enabled: bool = ...) -> None: ...

class UpdateWebhookResponse(_message.Message):
    __slots__ = ["webhook"]
    WEBHOOK_FIELD_NUMBER: _ClassVar[int]
    webhook: Webhook
    def __init__(self, webhook: _Optional[_Union[Webhook, _Mapping]] = ...) -> None: ...

class VerifyDomainRequest(_message.Message):
    __slots__ = ["actor_user_id", "domain", "organization_id"]
    ACTOR_USER_ID_FIELD_NUMBER: _ClassVar[int]
    DOMAIN_FIELD_NUMBER: _ClassVar[int]
    ORGANIZATION_ID_FIELD_NUMBER: _ClassVar[int]
    actor_user_id: str
    domain: str
    organization_id: str
    def __init__(self, actor_user_id: _Optional[str] = ..., organization_id: _Optional[str] = ..., domain: _Optional[str] = ...) -> None: ...

class VerifyDomainResponse(_message.Message):
    __slots__ = ["domain"]
    DOMAIN_FIELD_NUMBER: _ClassVar[int]
    domain: Domain
    def __init__(self, domain: _Optional[_Union[Domain, _Mapping]] = ...) -> None: ...

class Webhook(_message.Message):
    __slots__ = ["created_at", "description", "enabled", "events", "failing_since", "id", "updated_at", "url"]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    ENABLED_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    FAILING_SINCE_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    UPDATED_AT_FIELD_NUMBER: _ClassVar[int]
    URL_FIELD_NUMBER: _ClassVar[int]
    created_at: _timestamp_pb2.Timestamp
    description: str
    enabled: bool
    events: _containers.RepeatedScalarFieldContainer[str]
    failing_since: _timestamp_pb2.Timestamp
    id: str
    updated_at: _timestamp_pb2.Timestamp
    url: str
    def __init__(self, id: _Optional[str] = ..., url: _Optional[str] = ..., description: _Optional[str] = ..., events: _Optional[_Iterable[str]] = ..., enabled: bool = ..., created_at: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., updated_at: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., failing_since: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class WebhookDelivery(_message.Message):
    __slots__ = ["attempted_at", "duration_ms", "event_type", "id", "message_id", "response_status", "status"]
    ATTEMPTED_AT_FIELD_NUMBER: _ClassVar[int]
    DURATION_MS_FIELD_NUMBER: _ClassVar[int]
    EVENT_TYPE_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_ID_FIELD_NUMBER: _ClassVar[int]
    RESPONSE_STATUS_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    attempted_at: _timestamp_pb2.Timestamp
    duration_ms: int
    event_type: str
    id: str
    message_id: str
    response_status: int
    status: str
    def __init__(self, id: _Optional[str] = ..., message_id: _Optional[str] = ..., event_type: _Optional[str] = ..., status: _Optional[str] = ..., response_status: _Optional[int] = ..., duration_ms: _Optional[int] = ..., attempted_at: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class DomainStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []

class MembershipSource(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []

class InvitationStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []

class AuditActorType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []
