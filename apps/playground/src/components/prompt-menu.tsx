import type { McpPrompt, McpServer } from '@switchboard/core';
import { ErrorNotice, useMcpCompletion, useMcpPrompts } from '@switchboard/react';
import { useState } from 'react';

/**
 * The "/" menu of the composer: the prompts of every usable server whose name starts with what
 * follows the "/". Choosing one asks for its arguments (with the server's suggestions, from
 * `completion/complete`), gets it (`prompts/get`) and hands its text to the composer.
 */
export function PromptMenu({
  servers,
  query,
  onUse,
}: {
  servers: readonly McpServer[];
  /** What was typed after "/". */
  query: string;
  onUse: (text: string) => void;
}) {
  const [chosen, setChosen] = useState<{ server: McpServer; prompt: McpPrompt } | undefined>();
  if (chosen !== undefined) {
    return (
      <PromptArguments
        server={chosen.server}
        prompt={chosen.prompt}
        onUse={onUse}
        onBack={() => setChosen(undefined)}
      />
    );
  }
  return (
    <ul className="prompt-menu" data-testid="prompt-menu" aria-label="Prompts">
      {servers.map((server) => (
        <ServerPrompts
          key={server.name}
          server={server}
          query={query}
          onChoose={(prompt) => setChosen({ server, prompt })}
        />
      ))}
    </ul>
  );
}

function ServerPrompts({
  server,
  query,
  onChoose,
}: {
  server: McpServer;
  query: string;
  onChoose: (prompt: McpPrompt) => void;
}) {
  const prompts = useMcpPrompts(server);
  const matching = (prompts.data ?? []).filter((prompt) => prompt.name.startsWith(query));
  return (
    <>
      {matching.map((prompt) => (
        <li key={prompt.name}>
          <button
            type="button"
            className="suggestion"
            data-testid="prompt-option"
            data-prompt={prompt.name}
            onClick={() => onChoose(prompt)}
          >
            /{prompt.name} <span className="muted">({server.name})</span>
            {prompt.description === undefined ? '' : ` — ${prompt.description}`}
          </button>
        </li>
      ))}
    </>
  );
}

function PromptArguments({
  server,
  prompt,
  onUse,
  onBack,
}: {
  server: McpServer;
  prompt: McpPrompt;
  onUse: (text: string) => void;
  onBack: () => void;
}) {
  const [values, setValues] = useState<Record<string, string>>({});
  const [focused, setFocused] = useState<string | undefined>(prompt.arguments[0]?.name);
  const [problem, setProblem] = useState<{ failure: unknown } | undefined>();
  const filled = Object.fromEntries(Object.entries(values).filter(([, value]) => value !== ''));
  const suggestions = useMcpCompletion(
    server,
    { type: 'ref/prompt', name: prompt.name },
    focused === undefined ? undefined : { name: focused, value: values[focused] ?? '' },
    filled,
  );
  const use = () => {
    setProblem(undefined);
    server.getPrompt(prompt.name, filled).then(
      (result) => onUse(result.messages.map((message) => message.text).join('\n\n')),
      (error: unknown) => setProblem({ failure: error }),
    );
  };
  return (
    <form
      className="prompt-arguments"
      data-testid="prompt-arguments"
      onSubmit={(event) => {
        event.preventDefault();
        use();
      }}
    >
      <strong>/{prompt.name}</strong>
      {prompt.arguments.map((argument) => (
        <label key={argument.name}>
          {argument.title ?? argument.name}
          {argument.required ? ' *' : ''}
          <input
            data-testid={`prompt-argument-${argument.name}`}
            value={values[argument.name] ?? ''}
            onFocus={() => setFocused(argument.name)}
            onChange={(event) => setValues({ ...values, [argument.name]: event.target.value })}
          />
        </label>
      ))}
      {focused !== undefined && (suggestions.data?.values.length ?? 0) > 0 && (
        <ul className="suggestion-row" data-testid="prompt-suggestions" aria-label="Suggestions">
          {suggestions.data?.values.map((value) => (
            <li key={value}>
              <button
                type="button"
                className="suggestion"
                data-testid="prompt-suggestion"
                onClick={() => setValues({ ...values, [focused]: value })}
              >
                {value}
              </button>
            </li>
          ))}
        </ul>
      )}
      {problem !== undefined && (
        <ErrorNotice error={problem.failure} title="Could not use this prompt" />
      )}
      <button type="submit" className="button button--small" data-testid="prompt-use">
        Use prompt
      </button>{' '}
      <button type="button" className="button button--secondary button--small" onClick={onBack}>
        Back
      </button>
    </form>
  );
}
