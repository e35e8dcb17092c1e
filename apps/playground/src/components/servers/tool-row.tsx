import type { McpToolDescriptor } from '@switchboard/core';
import { MarkdownText } from '../markdown-text.tsx';
import { annotationBadges } from './annotation-badges.ts';

/**
 * One tool: its name (and the name the model sees, when prefixed), title, description,
 * annotation badges, "Run…", and its deferred and needs-approval toggles.
 */
export function ToolRow({
  tool,
  onToggleDeferred,
  onToggleApproval,
  onRun,
}: {
  tool: McpToolDescriptor;
  onToggleDeferred: () => void;
  onToggleApproval: () => void;
  onRun: () => void;
}) {
  const badges = annotationBadges(tool);
  return (
    <li
      className="tool-row"
      data-testid="tool-item"
      data-tool-name={tool.originalName}
      data-deferred={tool.deferred === true}
      data-needs-approval={tool.needsApproval === true}
    >
      <div className="tool-row__head">
        <code className="tool-list__name">{tool.originalName}</code>
        {tool.title !== undefined && <span className="tool-row__title">{tool.title}</span>}
        <button
          type="button"
          className="link-button tool-row__run"
          aria-label={`Run ${tool.originalName} in the tool runner`}
          data-testid="tool-run"
          onClick={onRun}
        >
          Run…
        </button>
      </div>
      {tool.name !== tool.originalName && (
        <span className="tool-row__model-name">
          model sees <code>{tool.name}</code>
        </span>
      )}
      {tool.description !== '' && (
        <MarkdownText className="tool-row__description" text={tool.description} />
      )}
      {badges.length > 0 && (
        <ul className="badges" aria-label="Annotations (hints from the server)">
          {badges.map((badge) => (
            <li key={badge.label} className={`hint hint--${badge.tone}`} data-hint={badge.label}>
              {badge.label}
            </li>
          ))}
        </ul>
      )}
      <div className="tool-row__toggles">
        <label className="toggle">
          <input
            type="checkbox"
            checked={tool.deferred === true}
            data-testid="tool-deferred"
            onChange={onToggleDeferred}
          />
          Deferred
        </label>
        <label className="toggle">
          <input
            type="checkbox"
            checked={tool.needsApproval === true}
            data-testid="tool-needs-approval"
            onChange={onToggleApproval}
          />
          Needs approval
        </label>
      </div>
    </li>
  );
}
