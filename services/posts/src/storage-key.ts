/** The object key of a post's content, `posts/{post_id}`: one object per post, overwritten by edits. */
export function storageKeyFor(postId: string): string {
  return `posts/${postId}`;
}
