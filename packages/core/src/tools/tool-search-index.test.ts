import { describe, expect, it } from 'vitest';
import { ToolSearchIndex, tokenize, type SearchableTool } from './tool-search-index.ts';

const names = (hits: readonly SearchableTool[]) => hits.map((hit) => hit.name);

describe('tokenize', () => {
  it('splits camelCase, snake_case, kebab-case, dots and slashes, lowercased', () => {
    expect(tokenize('getWeatherForecast')).toEqual(['get', 'weather', 'forecast']);
    expect(tokenize('list_open_pull-requests')).toEqual(['list', 'open', 'pull', 'request']);
    expect(tokenize('files.read/v2')).toEqual(['file', 'read', 'v2']);
  });

  it('drops stop words', () => {
    expect(tokenize('Show me the weather for a city, and the time in it')).toEqual([
      'show',
      'weather',
      'city',
      'time',
    ]);
    expect(tokenize('the of and to')).toEqual([]);
  });

  it('gives singular and plural forms one stem', () => {
    const same = (a: string, b: string) => expect(tokenize(a), `${a} ~ ${b}`).toEqual(tokenize(b));
    same('files', 'file');
    same('queries', 'query');
    same('boxes', 'box');
    same('matches', 'match');
    same('addresses', 'address');
    same('issues', 'issue');
    same('messages', 'message');
    same('databases', 'database');
    same('responses', 'response');
    same('cases', 'case');
    same('statuses', 'status');
    expect(tokenize('address')).toEqual(['address']);
  });

  it('gives -ing and -ed forms the stem of the base word', () => {
    const same = (a: string, b: string) => expect(tokenize(a), `${a} ~ ${b}`).toEqual(tokenize(b));
    same('creating', 'create');
    same('created', 'create');
    same('creates', 'create');
    same('updated', 'update');
    same('closing', 'close');
    same('listing', 'list');
    same('searched', 'search');
  });
});

describe('ToolSearchIndex', () => {
  it('ranks a name hit above a description hit', () => {
    const index = new ToolSearchIndex([
      { name: 'get_data', description: 'Gets data; mentions the weather once.' },
      { name: 'weather', description: 'Gets data.' },
    ]);
    expect(names(index.search('weather', 5))).toEqual(['weather', 'get_data']);
  });

  it('ranks a title hit above a description hit', () => {
    const index = new ToolSearchIndex([
      { name: 'alpha', description: 'Shows the forecast.' },
      { name: 'bravo', title: 'Forecast', description: 'Shows data.' },
    ]);
    expect(names(index.search('forecast', 5))).toEqual(['bravo', 'alpha']);
  });

  it('weighs rare terms above common ones', () => {
    const index = new ToolSearchIndex([
      { name: 'send_email', description: 'Send an email.' },
      { name: 'search_email', description: 'Search email.' },
      { name: 'archive_email', description: 'Archive an email.' },
      { name: 'email_invoice', description: 'Email an invoice.' },
    ]);
    expect(names(index.search('email invoice', 5))[0]).toBe('email_invoice');
  });

  it('matches split names, plurals and verb forms', () => {
    const index = new ToolSearchIndex([
      { name: 'getWeatherForecast', description: 'Daily outlook.' },
      { name: 'backup_database', description: 'Backs up one database.' },
      { name: 'create_invoice', description: 'Makes a bill.' },
    ]);
    expect(names(index.search('weather forecast', 5))).toEqual(['getWeatherForecast']);
    expect(names(index.search('databases', 5))).toEqual(['backup_database']);
    expect(names(index.search('creating invoices', 5))).toEqual(['create_invoice']);
  });

  it('leaves out tools with no matching term; stop words alone match nothing', () => {
    const index = new ToolSearchIndex([
      { name: 'a_tool', description: 'The tool for the job.' },
      { name: 'b_tool', description: 'Other.' },
    ]);
    expect(index.search('job', 5).map((hit) => hit.name)).toEqual(['a_tool']);
    expect(index.search('the for', 5)).toEqual([]);
    expect(index.search('', 5)).toEqual([]);
    expect(index.search('zebra', 5)).toEqual([]);
  });

  it('keeps input order between equal scores and honours the limit', () => {
    // Names of one term each, same description: every score is equal.
    const tools = ['charlie', 'alpha', 'bravo', 'delta'].map((name) => ({
      name,
      description: 'Same words.',
    }));
    const index = new ToolSearchIndex(tools);
    expect(names(index.search('same words', 10))).toEqual(['charlie', 'alpha', 'bravo', 'delta']);
    expect(names(index.search('same', 2))).toEqual(['charlie', 'alpha']);
    expect(index.search('same', 0)).toEqual([]);
  });

  it('an empty index finds nothing', () => {
    expect(new ToolSearchIndex([]).search('anything', 5)).toEqual([]);
  });

  it('returns the tool objects it was given', () => {
    const tool = { name: 'x_tool', title: 'X', description: 'Does x.' };
    expect(new ToolSearchIndex([tool]).search('x', 1)[0]).toBe(tool);
  });
});

/** A small labelled set: realistic tool descriptions and how users phrase requests. */
const CATALOG: SearchableTool[] = [
  {
    name: 'get_weather_forecast',
    description: 'Get the weather forecast for a city for the next days.',
  },
  { name: 'get_current_time', description: 'Returns the current time in a given time zone.' },
  { name: 'send_email', description: 'Send an email message to one or more recipients.' },
  { name: 'search_emails', description: 'Search the mailbox for emails matching a query.' },
  {
    name: 'create_calendar_event',
    description: "Create an event in the user's calendar with attendees.",
  },
  { name: 'list_calendar_events', description: 'List upcoming events from the calendar.' },
  { name: 'create_github_issue', description: 'Open a new issue in a GitHub repository.' },
  { name: 'list_pull_requests', description: 'List open pull requests of a repository.' },
  { name: 'merge_pull_request', description: 'Merge a pull request after its checks pass.' },
  { name: 'query_database', description: 'Run a read-only SQL query against the database.' },
  { name: 'backup_database', description: 'Create a backup snapshot of a database.' },
  { name: 'translate_text', description: 'Translate text between languages.' },
  {
    name: 'convert_currency',
    description: 'Convert an amount of money to another currency at current exchange rates.',
  },
  { name: 'create_invoice', description: 'Create an invoice for a customer and email it.' },
  { name: 'refund_payment', description: "Refund a payment to a customer's card." },
  { name: 'upload_file', description: 'Upload a file to cloud storage.' },
  { name: 'read_file', description: 'Read the contents of a file from storage.' },
  { name: 'resize_image', description: 'Resize or crop an image to new dimensions.' },
  { name: 'post_slack_message', title: 'Slack', description: 'Post a message to a channel.' },
  { name: 'get_stock_price', description: 'Get the latest stock price for a ticker symbol.' },
];

const LABELLED: [query: string, relevant: string[]][] = [
  ['what will the weather be tomorrow', ['get_weather_forecast']],
  ['email my boss about the delay', ['send_email']],
  ['find old emails about the contract', ['search_emails']],
  ['add an event to my calendar', ['create_calendar_event']],
  ['open an issue on github', ['create_github_issue']],
  ['merge pull request 42', ['merge_pull_request']],
  ['run sql against the orders database', ['query_database']],
  ['exchange rate for currency conversion', ['convert_currency']],
  ['refund the customer', ['refund_payment']],
  ['crop a picture', ['resize_image']],
  ['send a message to the team channel on slack', ['post_slack_message']],
  ['backups of all databases', ['backup_database']],
  ['translating a document into French', ['translate_text']],
  ['stock prices today', ['get_stock_price']],
  ['upcoming calendar events', ['list_calendar_events']],
];

describe('ToolSearchIndex on a labelled set', () => {
  it('has recall@5 = 1', () => {
    const index = new ToolSearchIndex(CATALOG);
    const misses = LABELLED.flatMap(([query, relevant]) => {
      const top = names(index.search(query, 5));
      const missing = relevant.filter((name) => !top.includes(name));
      return missing.length === 0 ? [] : [`${query} → ${top.join(', ')} (missing ${missing})`];
    });
    expect(misses).toEqual([]);
  });
});
