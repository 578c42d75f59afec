import { identityV1, postsV1 } from './index';

// The generated code is checked for staleness by `pnpm gen:check`; this
// checks that what it generates carries messages across the wire intact.
test('a message survives encoding and decoding, unset fields as their defaults', () => {
  const request = identityV1.AuthenticatePasswordRequest.fromPartial({ email: 'a@example.com', password: 'pässword' });
  const bytes = identityV1.AuthenticatePasswordRequest.encode(request).finish();
  expect(identityV1.AuthenticatePasswordRequest.decode(bytes)).toEqual(request);
  expect(postsV1.ListPostsRequest.decode(postsV1.ListPostsRequest.encode(postsV1.ListPostsRequest.fromPartial({})).finish())).toEqual(
    postsV1.ListPostsRequest.fromPartial({}),
  );
});

test('each service definition names its proto package and version', () => {
  expect(identityV1.IdentityServiceService.authenticatePassword.path).toBe('/identity.v1.IdentityService/AuthenticatePassword');
  expect(postsV1.PostsServiceService.createPost.path).toBe('/posts.v1.PostsService/CreatePost');
});
