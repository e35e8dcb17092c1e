import type {
  Client,
  McpSubscription,
  Resource,
  ResourceTemplateType as ResourceTemplate,
} from '@modelcontextprotocol/client';
import { SwitchboardError } from '../errors/switchboard-error.ts';
import { listAllPages } from './list-all-pages.ts';
import { mapResourceContents } from './map-resource-contents.ts';
import type {
  McpResource,
  McpResourceContents,
  McpResourceSubscription,
  McpResourceTemplate,
} from './resource-types.ts';
import { requestOptions, type ServerFeatureHost } from './server-feature-host.ts';

/** Options of the catalog's operations. */
export interface ResourceOperationOptions {
  signal?: AbortSignal;
  runContext?: unknown;
}

/** One subscribed URI: its listeners, and the wire subscription they share. */
interface Subscribed {
  listeners: Set<(uri: string) => void>;
  /** Resolves to what ends the subscription on the wire. */
  opened: Promise<() => Promise<void>>;
}

/**
 * The resources of one MCP server (a collaborator of `McpServer`, like the tool catalogue):
 * listing resources and templates (every page, our guard: `list-all-pages.ts`), reading, and
 * subscriptions to `notifications/resources/updated` — `resources/subscribe` on a 2025-era
 * connection, a `subscriptions/listen` stream with `resourceSubscriptions` on a 2026-07-28 one —
 * where the server's capabilities allow. Listings are not kept: every call asks the server
 * (React Query or the app caches them).
 */
export class ResourceCatalog {
  readonly #host: ServerFeatureHost;
  readonly #maxBytes: number;
  readonly #subscribed = new Map<string, Subscribed>();

  /** @param maxBytes The inline limit of `readResource`, in bytes. */
  constructor(host: ServerFeatureHost, maxBytes: number) {
    this.#host = host;
    this.#maxBytes = maxBytes;
  }

  /**
   * Every resource (`resources/list`, all pages). A server without the `resources` capability
   * has none (no request).
   */
  async list(options: ResourceOperationOptions = {}): Promise<McpResource[]> {
    const { signal } = options;
    const resources = await this.#host.use(
      options.runContext,
      async (client) => {
        if (client.getServerCapabilities()?.resources === undefined) return [];
        const pages = await listAllPages(
          (cursor) =>
            client.request(
              { method: 'resources/list', params: cursor === undefined ? {} : { cursor } },
              requestOptions(this.#host, signal),
            ),
          {
            method: 'resources/list',
            noun: 'resources',
            where: this.#host.where,
            scrub: this.#scrub,
          },
        );
        return pages.flatMap((page) => page.resources);
      },
      signal,
    );
    return resources.map((resource) => this.#describeResource(resource));
  }

  /** Every resource template (`resources/templates/list`, all pages). */
  async listTemplates(options: ResourceOperationOptions = {}): Promise<McpResourceTemplate[]> {
    const { signal } = options;
    const templates = await this.#host.use(
      options.runContext,
      async (client) => {
        if (client.getServerCapabilities()?.resources === undefined) return [];
        const pages = await listAllPages(
          (cursor) =>
            client.request(
              {
                method: 'resources/templates/list',
                params: cursor === undefined ? {} : { cursor },
              },
              requestOptions(this.#host, signal),
            ),
          {
            method: 'resources/templates/list',
            noun: 'resource templates',
            where: this.#host.where,
            scrub: this.#scrub,
          },
        );
        return pages.flatMap((page) => page.resourceTemplates);
      },
      signal,
    );
    return templates.map((template) => this.#describeTemplate(template));
  }

  /**
   * Reads one resource (`resources/read`, with the SDK's `readResource`): its bodies, each with
   * its MIME type and size; a body over `maxBytes` without its data (`omitted: 'too_large'`).
   *
   * @param maxBytes Overrides the server's limit for this read, in bytes.
   */
  async read(
    uri: string,
    options: ResourceOperationOptions & { maxBytes?: number } = {},
  ): Promise<McpResourceContents[]> {
    const { signal } = options;
    const result = await this.#host.use(
      options.runContext,
      (client) => client.readResource({ uri }, requestOptions(this.#host, signal)),
      signal,
    );
    return mapResourceContents(result.contents, options.maxBytes ?? this.#maxBytes);
  }

  /**
   * Calls `listener` with the URI whenever the server reports the resource updated
   * (`notifications/resources/updated`). Listeners of one URI share one subscription on the wire.
   *
   * @throws SwitchboardError `mcp_error` when the server does not offer subscriptions (2025 era:
   *   no `resources.subscribe` capability; 2026-07-28: the listen stream did not honour the URI),
   *   or any failure of the request.
   */
  async subscribe(
    uri: string,
    listener: (uri: string) => void,
    options: ResourceOperationOptions = {},
  ): Promise<McpResourceSubscription> {
    let entry = this.#subscribed.get(uri);
    if (entry === undefined) {
      const created: Subscribed = {
        listeners: new Set(),
        opened: this.#subscribeOnWire(uri, options),
      };
      entry = created;
      this.#subscribed.set(uri, created);
      created.opened.catch(() => {
        if (this.#subscribed.get(uri) === created) this.#subscribed.delete(uri);
      });
    }
    await entry.opened;
    const current = entry;
    current.listeners.add(listener);
    let closed = false;
    return {
      uri,
      close: async () => {
        if (closed) return;
        closed = true;
        current.listeners.delete(listener);
        if (current.listeners.size > 0 || this.#subscribed.get(uri) !== current) return;
        this.#subscribed.delete(uri);
        const end = await current.opened.catch(() => undefined);
        await end?.().catch(() => undefined);
      },
    };
  }

  /** The server said `uri` changed: its listeners hear it (a throwing one does not stop the rest). */
  noteUpdated(uri: string): void {
    for (const listener of [...(this.#subscribed.get(uri)?.listeners ?? [])]) {
      try {
        listener(uri);
      } catch (error) {
        queueMicrotask(() => {
          throw error;
        });
      }
    }
  }

  /** Ends every subscription (the connection is going away). Never rejects. */
  async reset(): Promise<void> {
    const entries = [...this.#subscribed.values()];
    this.#subscribed.clear();
    await Promise.all(
      entries.map(async (entry) => {
        const end = await entry.opened.catch(() => undefined);
        await end?.().catch(() => undefined);
      }),
    );
  }

  async #subscribeOnWire(
    uri: string,
    options: ResourceOperationOptions,
  ): Promise<() => Promise<void>> {
    const { signal, runContext } = options;
    return await this.#host.use(
      runContext,
      async (client: Client) => {
        if (client.getProtocolEra() === 'modern') {
          // 2026-07-28: no resources/subscribe; a subscriptions/listen stream carries the updates.
          const subscription: McpSubscription = await client.listen(
            { resourceSubscriptions: [uri] },
            requestOptions(this.#host, signal),
          );
          if (subscription.honoredFilter.resourceSubscriptions?.includes(uri) !== true) {
            await subscription.close().catch(() => undefined);
            throw this.#unsupported(uri);
          }
          return () => subscription.close();
        }
        if (client.getServerCapabilities()?.resources?.subscribe !== true) {
          throw this.#unsupported(uri);
        }
        await client.subscribeResource({ uri }, requestOptions(this.#host, signal));
        return async () => {
          await this.#host.use(runContext, (again) =>
            again.unsubscribeResource({ uri }, requestOptions(this.#host, undefined)),
          );
        };
      },
      signal,
    );
  }

  #unsupported(uri: string): SwitchboardError {
    return new SwitchboardError(
      'mcp_error',
      `${this.#host.where} does not offer updates of ${this.#host.scrub(uri)} (no resource subscriptions).`,
    );
  }

  readonly #scrub = (text: string): string => this.#host.scrub(text);

  #describeResource(resource: Resource): McpResource {
    const described: McpResource = { uri: resource.uri, name: this.#scrub(resource.name) };
    if (resource.title !== undefined) described.title = this.#scrub(resource.title);
    if (resource.description !== undefined) {
      described.description = this.#scrub(resource.description);
    }
    if (resource.mimeType !== undefined) described.mimeType = resource.mimeType;
    if (typeof resource.size === 'number') described.size = resource.size;
    return described;
  }

  #describeTemplate(template: ResourceTemplate): McpResourceTemplate {
    const described: McpResourceTemplate = {
      uriTemplate: template.uriTemplate,
      name: this.#scrub(template.name),
    };
    if (template.title !== undefined) described.title = this.#scrub(template.title);
    if (template.description !== undefined) {
      described.description = this.#scrub(template.description);
    }
    if (template.mimeType !== undefined) described.mimeType = template.mimeType;
    return described;
  }
}
