import type { AgentRunsSetting } from '../agent-runs-setting.ts';

/**
 * The Settings panel's "Agent runs" choice: in this page, or on a server at a URL (where the
 * server's own model and MCP servers are used; the model settings above apply to the page only).
 */
export function AgentRunsFieldset({
  value,
  onChange,
}: {
  value: { where: AgentRunsSetting['where']; url: string };
  onChange: (next: { where: AgentRunsSetting['where']; url: string }) => void;
}) {
  return (
    <fieldset className="settings-form__agent-runs" data-testid="settings-agent-runs">
      <legend>Agent runs</legend>
      <label className="choice">
        <input
          type="radio"
          name="agent-runs"
          value="page"
          checked={value.where === 'page'}
          onChange={() => onChange({ ...value, where: 'page' })}
        />
        In this page
      </label>
      <label className="choice">
        <input
          type="radio"
          name="agent-runs"
          value="server"
          checked={value.where === 'server'}
          data-testid="settings-agent-runs-server"
          onChange={() => onChange({ ...value, where: 'server' })}
        />
        On a server
      </label>
      {value.where === 'server' && (
        <label className="field">
          <span className="field__label">Agent server URL</span>
          <input
            type="url"
            value={value.url}
            placeholder="http://127.0.0.1:3010/agent/"
            autoComplete="off"
            spellCheck={false}
            data-testid="settings-agent-server-url"
            onChange={(event) => onChange({ ...value, url: event.target.value })}
          />
          <span className="field__hint">
            The server runs the agent with its own model and MCP servers (examples/agent-server);
            the chat and the thread list become the server&apos;s.
          </span>
        </label>
      )}
    </fieldset>
  );
}
