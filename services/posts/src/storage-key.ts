/** The object key of a post's content (spec part 2: `posts/{post_id}`). */
export function storageKeyFor(postId: string): string {
  return `posts/${postId}`;
}
