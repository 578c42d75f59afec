/** A timestamp of the API as the reader's locale writes dates and times. */
export function formatDate(iso: string): string {
  return new Date(iso).toLocaleString();
}
