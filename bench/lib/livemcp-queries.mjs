// Requests for the LiveMCPBench catalog (../shared/datasets/livemcptool: 70 real MCP servers, 527 tools), written
// for issue 33 before any ranking change and never naming the tool. The data set has tools but no requests, so these
// are ours; the tools are theirs. Each lists every tool that answers it (`server__tool`, as a hub names them).
// bench/catalog-public.mjs splits them by a hash of the request into a tuning part and a held-out part.

/** @type {{ query: string, expected: string[] }[]} */
export const LIVEMCP_QUERIES = [
  // The reference servers: filesystem, git, memory, time, fetch.
  {
    query: 'make sure a nested folder path exists',
    expected: ['filesystem__create_directory', 'desktop-commander__create_directory'],
  },
  { query: 'show the history of past commits', expected: ['git__git_log'] },
  { query: 'stage my changed files for the next commit', expected: ['git__git_add'] },
  { query: 'what did I change that is not staged yet', expected: ['git__git_diff_unstaged'] },
  { query: 'switch to another branch', expected: ['git__git_checkout'] },
  { query: 'start a new branch for the feature', expected: ['git__git_create_branch'] },
  { query: 'undo staging of everything', expected: ['git__git_reset'] },
  { query: 'which files are modified in the working tree', expected: ['git__git_status'] },
  { query: 'save my staged work with a message', expected: ['git__git_commit'] },
  { query: 'set up version control in a fresh project', expected: ['git__git_init'] },
  { query: 'print what is inside a text file', expected: ['filesystem__read_file', 'desktop-commander__read_file'] },
  { query: 'rename a file', expected: ['filesystem__move_file', 'desktop-commander__move_file'] },
  { query: 'show the folder structure recursively as a tree', expected: ['filesystem__directory_tree'] },
  { query: 'how large are the files in this folder', expected: ['filesystem__list_directory_with_sizes'] },
  {
    query: 'when was this file last modified',
    expected: ['filesystem__get_file_info', 'desktop-commander__get_file_info'],
  },
  {
    query: 'replace a few lines in a source file',
    expected: ['filesystem__edit_file', 'desktop-commander__edit_block', 'text-editor__edit_text_file_contents'],
  },
  { query: 'which directories am I permitted to touch', expected: ['filesystem__list_allowed_directories'] },
  { query: 'remember that Alice works at Acme', expected: ['memory__create_entities', 'memory__add_observations'] },
  { query: 'link two people in the knowledge graph as colleagues', expected: ['memory__create_relations'] },
  { query: 'what time is it in Tokyo right now', expected: ['time__get_current_time'] },
  { query: 'convert 3pm New York time to Berlin time', expected: ['time__convert_time'] },
  {
    query: 'download a web page and give me its text as markdown',
    expected: ['fetch__fetch', 'npx_fetch__fetch_markdown'],
  },
  // Other servers of the set.
  { query: 'is this npm package deprecated', expected: ['npm-sentinel-mcp__npmDeprecated'] },
  { query: 'how many weekly downloads does a package get', expected: ['npm-sentinel-mcp__npmTrends'] },
  { query: 'known security issues in my dependencies', expected: ['npm-sentinel-mcp__npmVulnerabilities'] },
  {
    query: 'stop a process that hangs',
    expected: ['desktop-commander__kill_process', 'desktop-commander__force_terminate'],
  },
  { query: 'search the code for a regular expression', expected: ['desktop-commander__search_code'] },
  { query: 'show the logs of a docker container', expected: ['docker-mcp__get-logs'] },
  { query: 'bring up a compose stack', expected: ['docker-mcp__deploy-compose'] },
  { query: 'who owns this domain name', expected: ['whois__whois_domain'] },
  { query: 'will it rain tomorrow in Paris', expected: ['weather__get_weather_by_city', 'weather__get_weather'] },
  { query: 'roll a number between 1 and 6', expected: ['random-number__random_int'] },
  { query: 'generate a secret token for an API key', expected: ['random-number__secure_token_hex'] },
  { query: 'evaluate 17 * 23 + 4', expected: ['calculator__calculate'] },
  { query: 'get the captions of a youtube video', expected: ['youtube-transcript__get_transcript'] },
  {
    query: 'find recent papers about diffusion models',
    expected: ['arxiv-mcp-server__search_papers', 'mcp-simple-arxiv__search_papers', 'biomcp__article_searcher'],
  },
  { query: 'give me a short summary of the encyclopedia article on Rome', expected: ['wikipedia__get_summary'] },
  { query: 'read the rows of a spreadsheet', expected: ['excel__excel_read_sheet'] },
  { query: 'add a new slide to my presentation', expected: ['ppt__add_slide', 'okppt__insert_blank_slide'] },
  { query: 'put a heading into the Word document', expected: ['word-document-server__add_heading'] },
  {
    query: 'draw a bar chart of monthly sales',
    expected: ['mcp-server-chart__generate_bar_chart', 'mcp-server-chart__generate_column_chart'],
  },
  { query: 'check that my mermaid diagram is valid', expected: ['mermaid-validator__validateMermaid'] },
  {
    query: 'what is the current price of bitcoin',
    expected: ['mcp-crypto-price__get-crypto-price', 'Asset_Price_MCP__get_asset_price'],
  },
  { query: 'how many euros is one hundred dollars', expected: ['exchange-rate-mcp__exchange_rate'] },
  {
    query: 'take a screenshot of the web page in the browser',
    expected: ['playwright__playwright_screenshot', 'puppeteer__puppeteer_screenshot'],
  },
  { query: 'find coffee shops near an address', expected: ['osm-mcp-server__find_nearby_places'] },
  { query: 'apartments to rent for a weekend in Lisbon', expected: ['airbnb__airbnb_search'] },
  { query: 'latest version of a maven artifact', expected: ['maven-deps-server__get_latest_release'] },
  { query: 'what is trending on github today', expected: ['mcp-github-trending__get_github_trending_repositories'] },
  { query: 'documentation for a library, up to date', expected: ['Context7__get-library-docs'] },
  { query: 'think through a hard problem step by step', expected: ['sequential-thinking__sequentialthinking'] },
  { query: "today's leetcode problem", expected: ['coin-flip__get-daily-challenge'] },
];
