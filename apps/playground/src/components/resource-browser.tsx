import { resourceParts, type McpServer, type MessageResourcePart } from '@switchboard/core';
import { ErrorNotice, useMcpResource, useMcpResources } from '@switchboard/react';
import { useState } from 'react';

/**
 * The resources of each usable server: pick a server, list its resources (and templates), read
 * one (text shown as text, binaries as type and size, a body over the 1 MiB limit as such) and
 * attach it to the next message. Server text is rendered as text, never as HTML.
 */
export function ResourceBrowser({
  servers,
  onAttach,
}: {
  servers: readonly McpServer[];
  onAttach: (parts: MessageResourcePart[]) => void;
}) {
  const [serverName, setServerName] = useState<string | undefined>(servers[0]?.name);
  const server = servers.find((candidate) => candidate.name === serverName) ?? servers[0];
  if (server === undefined) return <p className="muted">No usable server.</p>;
  return (
    <div className="resource-browser" data-testid="resource-browser">
      <label>
        Server{' '}
        <select
          data-testid="resource-server"
          value={server.name}
          onChange={(event) => setServerName(event.target.value)}
        >
          {servers.map((candidate) => (
            <option key={candidate.name} value={candidate.name}>
              {candidate.name}
            </option>
          ))}
        </select>
      </label>
      <ServerResources key={server.name} server={server} onAttach={onAttach} />
    </div>
  );
}

function ServerResources({
  server,
  onAttach,
}: {
  server: McpServer;
  onAttach: (parts: MessageResourcePart[]) => void;
}) {
  const listing = useMcpResources(server);
  const [open, setOpen] = useState<string | undefined>();
  if (listing.isPending) return <p className="muted">Listing resources…</p>;
  if (listing.isError) {
    return (
      <ErrorNotice error={listing.error} server={server.name} title="Could not list resources" />
    );
  }
  const { resources, templates } = listing.data;
  return (
    <>
      {resources.length === 0 && <p className="muted">This server lists no resources.</p>}
      <ul className="resource-list" data-testid="resource-list">
        {resources.map((resource) => (
          <li key={resource.uri} data-testid="resource" data-uri={resource.uri}>
            <button
              type="button"
              className="button button--secondary button--small"
              onClick={() => setOpen(open === resource.uri ? undefined : resource.uri)}
            >
              {resource.title ?? resource.name}
            </button>{' '}
            <code>{resource.uri}</code>
            {resource.mimeType === undefined ? '' : ` · ${resource.mimeType}`}
            {resource.size === undefined ? '' : ` · ${resource.size} bytes`}
            {open === resource.uri && (
              <ResourceBody
                server={server}
                uri={resource.uri}
                title={resource.title ?? resource.name}
                onAttach={onAttach}
              />
            )}
          </li>
        ))}
      </ul>
      {templates.length > 0 && (
        <p className="muted" data-testid="resource-templates">
          Templates: {templates.map((template) => template.uriTemplate).join(', ')}
        </p>
      )}
    </>
  );
}

function ResourceBody({
  server,
  uri,
  title,
  onAttach,
}: {
  server: McpServer;
  uri: string;
  title: string;
  onAttach: (parts: MessageResourcePart[]) => void;
}) {
  const body = useMcpResource(server, uri, { subscribe: true });
  if (body.isPending) return <p className="muted">Reading…</p>;
  if (body.isError) {
    return (
      <ErrorNotice error={body.error} server={server.name} title="Could not read this resource" />
    );
  }
  return (
    <div className="resource-body" data-testid="resource-body">
      {body.data.map((contents) =>
        'text' in contents ? (
          <pre key={contents.uri} className="resource-body__text">
            {contents.text}
          </pre>
        ) : 'blob' in contents ? (
          <p key={contents.uri}>
            Binary: {contents.mimeType ?? 'unknown type'}, {contents.size} bytes
          </p>
        ) : (
          <p key={contents.uri} data-testid="resource-too-large">
            Too large to inline: {contents.mimeType ?? 'unknown type'}, {contents.size} bytes
          </p>
        ),
      )}
      <button
        type="button"
        className="button button--small"
        data-testid="resource-attach"
        onClick={() => onAttach(resourceParts(body.data, { title, server: server.name }))}
      >
        Attach to the next message
      </button>
    </div>
  );
}
