export interface ApiResponse<T = Record<string, unknown>> {
  readonly status: number;
  readonly headers: Headers;
  readonly body: T;
  readonly text: string;
}

/**
 * A client of the HTTP API as a browser-less app would be: it keeps the
 * `session_id` cookie between calls and nothing else.
 */
export class ApiClient {
  private cookie: string | undefined;

  constructor(
    readonly baseUrl: string,
    private readonly defaultHeaders: Record<string, string> = {},
  ) {}

  get sessionCookie(): string | undefined {
    return this.cookie;
  }

  set sessionCookie(value: string | undefined) {
    this.cookie = value;
  }

  async request<T = Record<string, unknown>>(
    method: string,
    path: string,
    options: { json?: unknown; body?: string; headers?: Record<string, string> } = {},
  ): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = { ...this.defaultHeaders, ...options.headers };
    if (this.cookie !== undefined) headers.cookie = `session_id=${this.cookie}`;
    let body = options.body;
    if (options.json !== undefined) {
      headers['content-type'] ??= 'application/json';
      body = JSON.stringify(options.json);
    }
    const response = await fetch(`${this.baseUrl}${path}`, { method, headers, body });
    const text = await response.text();
    this.absorbCookie(response.headers);
    let parsed: unknown = undefined;
    if (text.length > 0 && /json/.test(response.headers.get('content-type') ?? '')) parsed = JSON.parse(text);
    return { status: response.status, headers: response.headers, body: parsed as T, text };
  }

  get<T = Record<string, unknown>>(path: string, headers?: Record<string, string>) {
    return this.request<T>('GET', path, { headers });
  }

  post<T = Record<string, unknown>>(path: string, json?: unknown, headers?: Record<string, string>) {
    return this.request<T>('POST', path, { json, headers });
  }

  delete<T = Record<string, unknown>>(path: string) {
    return this.request<T>('DELETE', path);
  }

  private absorbCookie(headers: Headers): void {
    for (const line of headers.getSetCookie()) {
      const match = /^session_id=([^;]*)/.exec(line);
      if (!match) continue;
      const cleared = /Max-Age=0/i.test(line) || match[1] === '';
      this.cookie = cleared ? undefined : match[1];
    }
  }
}

/** The Set-Cookie line for session_id, for checks of its attributes. */
export function sessionSetCookie(headers: Headers): string | undefined {
  return headers.getSetCookie().find((line) => line.startsWith('session_id='));
}
