export interface ApiResponse<T = Record<string, unknown>> {
  readonly status: number;
  readonly headers: Headers;
  readonly body: T;
  readonly text: string;
}

/**
 * A client of the HTTP API as a browser-less app would be: it keeps the
 * cookies the gateway sets (`session_id`, and `oauth_binding` between an
 * OAuth authorize and its completion) and sends them all back.
 */
export class ApiClient {
  private readonly cookies = new Map<string, string>();

  constructor(
    readonly baseUrl: string,
    private readonly defaultHeaders: Record<string, string> = {},
  ) {}

  get sessionCookie(): string | undefined {
    return this.cookies.get('session_id');
  }

  set sessionCookie(value: string | undefined) {
    if (value === undefined) this.cookies.delete('session_id');
    else this.cookies.set('session_id', value);
  }

  /** Forgets one cookie, as another browser would never have had it. */
  dropCookie(name: string): void {
    this.cookies.delete(name);
  }

  async request<T = Record<string, unknown>>(
    method: string,
    path: string,
    options: { json?: unknown; body?: string; headers?: Record<string, string>; redirect?: 'follow' | 'manual' } = {},
  ): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = { ...this.defaultHeaders, ...options.headers };
    if (this.cookies.size > 0 && headers.cookie === undefined) {
      headers.cookie = [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    }
    let body = options.body;
    if (options.json !== undefined) {
      headers['content-type'] ??= 'application/json';
      body = JSON.stringify(options.json);
    }
    const response = await fetch(`${this.baseUrl}${path}`, { method, headers, body, ...(options.redirect ? { redirect: options.redirect } : {}) });
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

  patch<T = Record<string, unknown>>(path: string, json?: unknown) {
    return this.request<T>('PATCH', path, { json });
  }

  /** The value of a cookie this client holds, as a browser would send it. */
  cookie(name: string): string | undefined {
    return this.cookies.get(name);
  }

  delete<T = Record<string, unknown>>(path: string) {
    return this.request<T>('DELETE', path);
  }

  private absorbCookie(headers: Headers): void {
    for (const line of headers.getSetCookie()) {
      const match = /^([^=;\s]+)=([^;]*)/.exec(line);
      if (!match) continue;
      const [, name, value] = match as unknown as [string, string, string];
      const cleared = /Max-Age=0/i.test(line) || /Expires=Thu, 01 Jan 1970/i.test(line) || value === '';
      if (cleared) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }
}

/** The Set-Cookie line for session_id, for checks of its attributes. */
export function sessionSetCookie(headers: Headers): string | undefined {
  return headers.getSetCookie().find((line) => line.startsWith('session_id='));
}
