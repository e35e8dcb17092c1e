import { useMemo, useState, type ReactNode } from 'react';
import { classNames } from './class-names.ts';
import { describeUrl } from './describe-url.ts';
import { DeclineAndCancel, InterruptFrame } from './interrupt-frame.tsx';
import { InterruptNotes } from './interrupt-notes.tsx';
import { InterruptSource } from './interrupt-source.tsx';
import type { Interrupt, ResolveHandler } from './interrupt-types.ts';
import { usePendingAnswer } from './use-pending-answer.ts';

/** Props of {@link UrlElicitation}. */
export interface UrlElicitationProps {
  /** A URL-mode interrupt (`mode: 'url'`, `url`, `message`, `server`). */
  interrupt: Interrupt;
  /**
   * Called with `'approve'` when the user says they finished on the opened page, `'reject'` on
   * Decline and `'cancel'` on Cancel.
   */
  onResolve: ResolveHandler;
  /** Extra class for the root element (`sb-interrupt sb-url-elicitation`). */
  className?: string;
}

/**
 * An MCP URL-mode elicitation (docs/architecture.md, "The life of an interrupt" and "Security
 * rules"): shows the full URL with its domain
 * highlighted (scheme / host / rest), warns about plain http (softly for localhost), punycode
 * hosts and credentials before the host, and shows the server and its message as text. Nothing
 * is fetched or opened by itself: "Open" opens the URL only on a click, only when it is http(s),
 * with `window.open(url, '_blank', 'noopener,noreferrer')`. Then "I've finished" answers
 * `approve`; Decline (`reject`) and Cancel (`cancel`) are always there.
 */
export function UrlElicitation({
  interrupt,
  onResolve,
  className,
}: UrlElicitationProps): ReactNode {
  const url = useMemo(() => describeUrl(interrupt.url), [interrupt.url]);
  const { pending, answer } = usePendingAnswer(onResolve);
  const [opened, setOpened] = useState(false);
  const [refusal, setRefusal] = useState<string | undefined>(undefined);

  const open = () => {
    if (url === undefined || !url.openable) {
      setRefusal('Only http and https links can be opened.');
      return;
    }
    window.open(url.href, '_blank', 'noopener,noreferrer');
    setOpened(true);
  };

  return (
    <InterruptFrame
      interrupt={interrupt}
      variantClassNames={['sb-url-elicitation', className]}
      title={
        <>
          <InterruptSource interrupt={interrupt} /> asks you to open a link
        </>
      }
    >
      <InterruptNotes interrupt={interrupt} />
      {url === undefined ? (
        <p className="sb-url-warning" role="alert">
          This link cannot be shown: the server did not send a valid address.
        </p>
      ) : (
        <>
          <p className="sb-url" data-testid="sb-url">
            <span className="sb-url-scheme">{url.scheme}</span>
            {url.userinfo !== '' && <span className="sb-url-userinfo">{url.userinfo}</span>}
            <strong className="sb-url-host">{url.host}</strong>
            <span className="sb-url-rest">{url.rest}</span>
          </p>
          <UrlWarnings url={url} />
        </>
      )}
      {refusal !== undefined && (
        <p className="sb-url-warning" role="alert">
          {refusal}
        </p>
      )}
      <div className="sb-actions">
        {opened ? (
          <button
            type="button"
            className="sb-button sb-button--primary"
            disabled={pending}
            onClick={() => answer('approve')}
          >
            I&apos;ve finished
          </button>
        ) : null}
        <button
          type="button"
          className={classNames('sb-button', !opened && 'sb-button--primary')}
          disabled={pending || url === undefined || !url.openable}
          onClick={open}
        >
          {opened ? 'Open again' : 'Open'}
        </button>
        <DeclineAndCancel disabled={pending} answer={answer} />
      </div>
    </InterruptFrame>
  );
}

function UrlWarnings({ url }: { url: NonNullable<ReturnType<typeof describeUrl>> }): ReactNode {
  const warnings: { key: string; text: string; soft?: boolean }[] = [];
  if (!url.openable) {
    warnings.push({
      key: 'scheme',
      text: `This is not a web address (${url.scheme.replace(/\/\/$/, '')}); it cannot be opened. Only http and https links can be opened.`,
    });
  } else if (!url.secure && url.local) {
    warnings.push({
      key: 'local',
      soft: true,
      text: 'This link points to this computer (localhost) without encryption (http).',
    });
  } else if (!url.secure) {
    warnings.push({
      key: 'insecure',
      text: 'Not secure: this link uses http, not https. What you see or type there can be read or changed on the way.',
    });
  }
  if (url.punycode) {
    warnings.push({
      key: 'punycode',
      text: 'The domain contains international characters (punycode "xn--"); it may imitate a familiar site. Check it carefully.',
    });
  }
  if (url.userinfo !== '') {
    warnings.push({
      key: 'userinfo',
      text: `The part before "@" (${url.userinfo.slice(0, -1)}) is not the site: the site is ${url.host}.`,
    });
  }
  if (warnings.length === 0) return null;
  return (
    <ul className="sb-url-warnings">
      {warnings.map((warning) => (
        <li
          key={warning.key}
          className={classNames('sb-url-warning', warning.soft === true && 'sb-url-warning--soft')}
          data-warning={warning.key}
        >
          {warning.text}
        </li>
      ))}
    </ul>
  );
}
