from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Event(_message.Message):
    __slots__ = ["id", "occurred_at", "org_created", "org_deleted", "org_invitation_accepted", "org_invitation_created", "org_invitation_revoked", "org_member_added", "org_member_reactivated", "org_member_removed", "org_member_role_changed", "org_member_suspended", "org_updated", "post_created", "post_deleted", "post_updated", "request_id", "session_revoked", "type", "user_deleted", "user_disabled", "user_email_changed", "user_email_verified", "user_registered", "version"]
    ID_FIELD_NUMBER: _ClassVar[int]
    OCCURRED_AT_FIELD_NUMBER: _ClassVar[int]
    ORG_CREATED_FIELD_NUMBER: _ClassVar[int]
    ORG_DELETED_FIELD_NUMBER: _ClassVar[int]
    ORG_INVITATION_ACCEPTED_FIELD_NUMBER: _ClassVar[int]
    ORG_INVITATION_CREATED_FIELD_NUMBER: _ClassVar[int]
    ORG_INVITATION_REVOKED_FIELD_NUMBER: _ClassVar[int]
    ORG_MEMBER_ADDED_FIELD_NUMBER: _ClassVar[int]
    ORG_MEMBER_REACTIVATED_FIELD_NUMBER: _ClassVar[int]
    ORG_MEMBER_REMOVED_FIELD_NUMBER: _ClassVar[int]
    ORG_MEMBER_ROLE_CHANGED_FIELD_NUMBER: _ClassVar[int]
    ORG_MEMBER_SUSPENDED_FIELD_NUMBER: _ClassVar[int]
    ORG_UPDATED_FIELD_NUMBER: _ClassVar[int]
    POST_CREATED_FIELD_NUMBER: _ClassVar[int]
    POST_DELETED_FIELD_NUMBER: _ClassVar[int]
    POST_UPDATED_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    SESSION_REVOKED_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    USER_DELETED_FIELD_NUMBER: _ClassVar[int]
    USER_DISABLED_FIELD_NUMBER: _ClassVar[int]
    USER_EMAIL_CHANGED_FIELD_NUMBER: _ClassVar[int]
    USER_EMAIL_VERIFIED_FIELD_NUMBER: _ClassVar[int]
    USER_REGISTERED_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    id: str
    occurred_at: _timestamp_pb2.Timestamp
    org_created: OrgCreated
    org_deleted: OrgDeleted
    org_invitation_accepted: OrgInvitationAccepted
    org_invitation_created: OrgInvitationCreated
    org_invitation_revoked: OrgInvitationRevoked
    org_member_added: OrgMemberAdded
    org_member_reactivated: OrgMemberReactivated
    org_member_removed: OrgMemberRemoved
    org_member_role_changed: OrgMemberRoleChanged
    org_member_suspended: OrgMemberSuspended
    org_updated: OrgUpdated
    post_created: PostCreated
    post_deleted: PostDeleted
    post_updated: PostUpdated
    request_id: str
    session_revoked: SessionRevoked
    type: str
    user_deleted: UserDeleted
    user_disabled: UserDisabled
    user_email_changed: UserEmailChanged
    user_email_verified: UserEmailVerified
    user_registered: UserRegistered
    version: int
    def __init__(self, id: _Optional[str] = ..., type: _Optional[str] = ..., version: _Optional[int] = ..., occurred_at: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., request_id: _Optional[str] = ..., user_registered: _Optional[_Union[UserRegistered, _Mapping]] = ..., user_email_verified: _Optional[_Union[UserEmailVerified, _Mapping]] = ..., user_email_changed: _Optional[_Union[UserEmailChanged, _Mapping]] = ..., user_deleted: _Optional[_Union[UserDeleted, _Mapping]] = ..., user_disabled: _Optional[_Union[UserDisabled, _Mapping]] = ..., session_revoked: _Optional[_Union[SessionRevoked, _Mapping]] = ..., post_created: _Optional[_Union[PostCreated, _Mapping]] = ..., post_updated: _Optional[_Union[PostUpdated, _Mapping]] = ..., post_deleted: _Optional[_Union[PostDeleted, _Mapping]] = ..., org_created: _Optional[_Union[OrgCreated, _Mapping]] = ..., org_updated: _Optional[_Union[OrgUpdated, _Mapping]] = ..., org_deleted: _Optional[_Union[OrgDeleted, _Mapping]] = ..., org_member_added: _Optional[_Union[OrgMemberAdded, _Mapping]] = ..., org_member_removed: _Optional[_Union[OrgMemberRemoved, _Mapping]] = ..., org_member_role_changed: _Optional[_Union[OrgMemberRoleChanged, _Mapping]] = ..., org_invitation_created: _Optional[_Union[OrgInvitationCreated, _Mapping]] = ..., org_invitation_accepted: _Optional[_Union[OrgInvitationAccepted, _Mapping]] = ..., org_invitation_revoked: _Optional[_Union[OrgInvitationRevoked, _Mapping]] = ..., org_member_suspended: _Optional[_Union[OrgMemberSuspended, _Mapping]] = ..., org_member_reactivated: _Optional[_Union[OrgMemberReactivated, _Mapping]] = ...) -> None: ...

class OrgCreated(_message.Message):
    __slots__ = ["actor_user_id", "organization_id", "slug"]
    ACTOR_USER_ID_FIELD_NUMBER: _ClassVar[int]
    ORGANIZATION_ID_FIELD_NUMBER: _ClassVar[int]
    SLUG_FIELD_NUMBER: _ClassVar[int]
    actor_user_id: str
    organization_id: str
    slug: str
    def __init__(self, organization_id: _Optional[str] = ..., slug: _Optional[str] = ..., actor_user_id: _Optional[str] = ...) -> None: ...

class OrgDeleted(_message.Message):
    __slots__ = ["actor_user_id", "organization_id", "reason"]
    ACTOR_USER_ID_FIELD_NUMBER: _ClassVar[int]
    ORGANIZATION_ID_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    actor_user_id: str
    organization_id: str
    reason: str
    def __init__(self, organization_id: _Optional[str] = ..., reason: _Optional[str] = ..., actor_user_id: _Optional[str] = ...) -> None: ...

class OrgInvitationAccepted(_message.Message):
    __slots__ = ["invitation_id", "organization_id", "user_id"]
    INVITATION_ID_FIELD_NUMBER: _ClassVar[int]
    ORGANIZATION_ID_FIELD_NUMBER: _ClassVar[int]
    USER_ID_FIELD_NUMBER: _ClassVar[int]
    invitation_id: str
    organization_id: str
    user_id: str
    def __init__(self, organization_id: _Optional[str] = ..., invitation_id: _Optional[str] = ..., user_id: _Optional[str] = ...) -> None: ...

class OrgInvitationCreated(_message.Message):
    __slots__ = ["actor_user_id", "invitation_id", "organization_id", "role"]
    ACTOR_USER_ID_FIELD_NUMBER: _ClassVar[int]
    INVITATION_ID_FIELD_NUMBER: _ClassVar[int]
    ORGANIZATION_ID_FIELD_NUMBER: _ClassVar[int]
    ROLE_FIELD_NUMBER: _ClassVar[int]
    actor_user_id: str
    invitation_id: str
    organization_id: str
    role: str
    def __init__(self, organization_id: _Optional[str] = ..., invitation_id: _Optional[str] = ..., role: _Optional[str] = ..., actor_user_id: _Optional[str] = ...) -> None: ...

class OrgInvitationRevoked(_message.Message):
    __slots__ = ["actor_user_id", "invitation_id", "organization_id"]
    ACTOR_USER_ID_FIELD_NUMBER: _ClassVar[int]
    INVITATION_ID_FIELD_NUMBER: _ClassVar[int]
    ORGANIZATION_ID_FIELD_NUMBER: _ClassVar[int]
    actor_user_id: str
    invitation_id: str
    organization_id: str
    def __init__(self, organization_id: _Optional[str] = ..., invitation_id: _Optional[str] = ..., actor_user_id: _Optional[str] = ...) -> None: ...

class OrgMemberAdded(_message.Message):
    __slots__ = ["organization_id", "role", "source", "user_id"]
    ORGANIZATION_ID_FIELD_NUMBER: _ClassVar[int]
    ROLE_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    USER_ID_FIELD_NUMBER: _ClassVar[int]
    organization_id: str
    role: str
    source: str
    user_id: str
    def __init__(self, organization_id: _Optional[str] = ..., user_id: _Optional[str] = ..., role: _Optional[str] = ..., source: _Optional[str] = ...) -> None: ...

class OrgMemberReactivated(_message.Message):
    __slots__ = ["organization_id", "user_id"]
    ORGANIZATION_ID_FIELD_NUMBER: _ClassVar[int]
    USER_ID_FIELD_NUMBER: _ClassVar[int]
    organization_id: str
    user_id: str
    def __init__(self, organization_id: _Optional[str] = ..., user_id: _Optional[str] = ...) -> None: ...

class OrgMemberRemoved(_message.Message):
    __slots__ = ["actor_user_id", "organization_id", "reason", "user_id"]
    ACTOR_USER_ID_FIELD_NUMBER: _ClassVar[int]
    ORGANIZATION_ID_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    USER_ID_FIELD_NUMBER: _ClassVar[int]
    actor_user_id: str
    organization_id: str
    reason: str
    user_id: str
    def __init__(self, organization_id: _Optional[str] = ..., user_id: _Optional[str] = ..., reason: _Optional[str] = ..., actor_user_id: _Optional[str] = ...) -> None: ...

class OrgMemberRoleChanged(_message.Message):
    __slots__ = ["actor_user_id", "organization_id", "previous_role", "role", "user_id"]
    ACTOR_USER_ID_FIELD_NUMBER: _ClassVar[int]
    ORGANIZATION_ID_FIELD_NUMBER: _ClassVar[int]
    PREVIOUS_ROLE_FIELD_NUMBER: _ClassVar[int]
    ROLE_FIELD_NUMBER: _ClassVar[int]
    USER_ID_FIELD_NUMBER: _ClassVar[int]
    actor_user_id: str
    organization_id: str
    previous_role: str
    role: str
    user_id: str
    def __init__(self, organization_id: _Optional[str] = ..., user_id: _Optional[str] = ..., role: _Optional[str] = ..., previous_role: _Optional[str] = ..., actor_user_id: _Optional[str] = ...) -> None: ...

class OrgMemberSuspended(_message.Message):
    __slots__ = ["organization_id", "sessions_ended", "user_id"]
    ORGANIZATION_ID_FIELD_NUMBER: _ClassVar[int]
    SESSIONS_ENDED_FIELD_NUMBER: _ClassVar[int]
    USER_ID_FIELD_NUMBER: _ClassVar[int]
    organization_id: str
    sessions_ended: bool
    user_id: str
    def __init__(self, organization_id: _Optional[str] = ..., user_id: _Optional[str] = ..., sessions_ended: bool = ...) -> None: ...

class OrgUpdated(_message.Message):
    __slots__ = ["actor_user_id", "organization_id", "slug"]
    ACTOR_USER_ID_FIELD_NUMBER: _ClassVar[int]
    ORGANIZATION_ID_FIELD_NUMBER: _ClassVar[int]
    SLUG_FIELD_NUMBER: _ClassVar[int]
    actor_user_id: str
    organization_id: str
    slug: str
    def __init__(self, organization_id: _Optional[str] = ..., slug: _Optional[str] = ..., actor_user_id: _Optional[str] = ...) -> None: ...

class PostCreated(_message.Message):
    __slots__ = ["author_id", "post_id"]
    AUTHOR_ID_FIELD_NUMBER: _ClassVar[int]
    POST_ID_FIELD_NUMBER: _ClassVar[int]
    author_id: str
    post_id: str
    def __init__(self, post_id: _Optional[str] = ..., author_id: _Optional[str] = ...) -> None: ...

class PostDeleted(_message.Message):
    __slots__ = ["author_id", "post_id"]
    AUTHOR_ID_FIELD_NUMBER: _ClassVar[int]
    POST_ID_FIELD_NUMBER: _ClassVar[int]
    author_id: str
    post_id: str
    def __init__(self, post_id: _Optional[str] = ..., author_id: _Optional[str] = ...) -> None: ...

class PostUpdated(_message.Message):
    __slots__ = ["author_id", "post_id"]
    AUTHOR_ID_FIELD_NUMBER: _ClassVar[int]
    POST_ID_FIELD_NUMBER: _ClassVar[int]
    author_id: str
    post_id: str
    def __init__(self, post_id: _Optional[str] = ..., author_id: _Optional[str] = ...) -> None: ...

class SessionRevoked(_message.Message):
    __slots__ = ["kept_session_id", "reason", "session_ids", "user_id"]
    KEPT_SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    SESSION_IDS_FIELD_NUMBER: _ClassVar[int]
    USER_ID_FIELD_NUMBER: _ClassVar[int]
    kept_session_id: str
    reason: str
    session_ids: _containers.RepeatedScalarFieldContainer[str]
    user_id: str
    def __init__(self, user_id: _Optional[str] = ..., reason: _Optional[str] = ..., session_ids: _Optional[_Iterable[str]] = ..., kept_session_id: _Optional[str] = ...) -> None: ...

class UserDeleted(_message.Message):
    __slots__ = ["reason", "user_id"]
    REASON_FIELD_NUMBER: _ClassVar[int]
    USER_ID_FIELD_NUMBER: _ClassVar[int]
    reason: str
    user_id: str
    def __init__(self, user_id: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...

class UserDisabled(_message.Message):
    __slots__ = ["user_id"]
    USER_ID_FIELD_NUMBER: _ClassVar[int]
    user_id: str
    def __init__(self, user_id: _Optional[str] = ...) -> None: ...

class UserEmailChanged(_message.Message):
    __slots__ = ["user_id"]
    USER_ID_FIELD_NUMBER: _ClassVar[int]
    user_id: str
    def __init__(self, user_id: _Optional[str] = ...) -> None: ...

class UserEmailVerified(_message.Message):
    __slots__ = ["user_id"]
    USER_ID_FIELD_NUMBER: _ClassVar[int]
    user_id: str
    def __init__(self, user_id: _Optional[str] = ...) -> None: ...

class UserRegistered(_message.Message):
    __slots__ = ["method", "user_id"]
    METHOD_FIELD_NUMBER: _ClassVar[int]
    USER_ID_FIELD_NUMBER: _ClassVar[int]
    method: str
    user_id: str
    def __init__(self, user_id: _Optional[str] = ..., method: _Optional[str] = ...) -> None: ...
