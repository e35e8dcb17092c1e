import { Lexer, type Token, type Tokens } from 'marked';
import type { ReactNode } from 'react';

/**
 * Markdown from an MCP server (a tool's or server's description) as text formatting: paragraphs,
 * lists, `code`, **strong**, *emphasis*, ~~strikethrough~~, code blocks, and links. The text is
 * parsed with `marked`'s lexer and every token becomes a React element, so nothing the server
 * sent is ever HTML: raw HTML shows as its literal text, a link shows its text with its address
 * as a tooltip and opens only for `http:` / `https:` (new tab, `noopener noreferrer`), and an
 * image shows its alt text.
 */
export function MarkdownText({ text, className }: { text: string; className?: string }) {
  const tokens = new Lexer({ gfm: true }).lex(text);
  return <div className={`markdown-text ${className ?? ''}`}>{blocks(tokens)}</div>;
}

function blocks(tokens: readonly Token[]): ReactNode[] {
  return tokens.map((token, index) => block(token, index));
}

function block(token: Token, key: number): ReactNode {
  switch (token.type) {
    case 'paragraph':
      return <p key={key}>{inline((token as Tokens.Paragraph).tokens)}</p>;
    case 'heading':
      // A description's heading is emphasis inside a card, not a page heading.
      return (
        <p key={key}>
          <strong>{inline((token as Tokens.Heading).tokens)}</strong>
        </p>
      );
    case 'list': {
      const list = token as Tokens.List;
      const items = list.items.map((item, index) => <li key={index}>{blocks(item.tokens)}</li>);
      return list.ordered ? <ol key={key}>{items}</ol> : <ul key={key}>{items}</ul>;
    }
    case 'code':
      return (
        <pre key={key} className="code-block">
          {(token as Tokens.Code).text}
        </pre>
      );
    case 'blockquote':
      return <blockquote key={key}>{blocks((token as Tokens.Blockquote).tokens)}</blockquote>;
    case 'text': {
      const text = token as Tokens.Text;
      return <span key={key}>{text.tokens === undefined ? text.text : inline(text.tokens)}</span>;
    }
    case 'space':
    case 'hr':
      return null;
    default:
      // Tables, raw HTML and anything else: the source text, as text.
      return <p key={key}>{token.raw}</p>;
  }
}

function inline(tokens: readonly Token[] | undefined): ReactNode[] {
  return (tokens ?? []).map((token, key) => {
    switch (token.type) {
      case 'text':
      case 'escape': {
        const text = token as Tokens.Text;
        return text.tokens === undefined ? text.text : <span key={key}>{inline(text.tokens)}</span>;
      }
      case 'codespan':
        return <code key={key}>{(token as Tokens.Codespan).text}</code>;
      case 'strong':
        return <strong key={key}>{inline((token as Tokens.Strong).tokens)}</strong>;
      case 'em':
        return <em key={key}>{inline((token as Tokens.Em).tokens)}</em>;
      case 'del':
        return <del key={key}>{inline((token as Tokens.Del).tokens)}</del>;
      case 'br':
        return <br key={key} />;
      case 'link': {
        const link = token as Tokens.Link;
        return /^https?:\/\//i.test(link.href) ? (
          <a key={key} href={link.href} title={link.href} target="_blank" rel="noopener noreferrer">
            {inline(link.tokens)}
          </a>
        ) : (
          <span key={key}>{inline(link.tokens)}</span>
        );
      }
      case 'image':
        return <span key={key}>{(token as Tokens.Image).text}</span>;
      default:
        // Raw HTML (`<b>`, `<img onerror>`) and anything unknown: its literal text.
        return token.raw;
    }
  });
}
