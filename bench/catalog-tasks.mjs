// The search-quality sets of bench/catalog.mjs: tasks written as a user would ask them, each with the tool (or the
// tools, when two answer it equally) that should come first, against the catalog of the demo workspace plus the four
// upstream servers of bench/lib/catalog-workspace.mjs. TASKS was written before the ranking's weights and synonyms
// were chosen, and they were chosen on it; HELD_OUT was written after, and nothing was tuned on it.
export const TASKS = [
  // GitLab (the largest server: 118 tools, many of them alike)
  { query: 'add a comment to the issue', expected: ['gitlab__create_issue_note', 'gitlab__create_note'] },
  { query: 'open a new issue about the login bug', expected: ['gitlab__create_issue'] },
  { query: 'merge the merge request once it is approved', expected: ['gitlab__merge_merge_request'] },
  { query: 'approve this merge request', expected: ['gitlab__approve_merge_request'] },
  {
    query: 'show me the diff of the merge request',
    expected: ['gitlab__get_merge_request_diffs', 'gitlab__list_merge_request_diffs'],
  },
  { query: 'create a new branch for my feature', expected: ['gitlab__create_branch'] },
  { query: 'delete the old branch', expected: ['gitlab__delete_branch'] },
  { query: 'list the open issues in the project', expected: ['gitlab__list_issues'] },
  { query: 'which issues are assigned to me', expected: ['gitlab__my_issues'] },
  { query: 'who last changed each line of this file', expected: ['gitlab__get_file_blame'] },
  {
    query: 'check whether the CI configuration is valid',
    expected: ['gitlab__validate_project_ci_lint', 'gitlab__validate_ci_lint'],
  },
  { query: 'list the commits on main', expected: ['gitlab__list_commits'] },
  { query: 'fork the repository', expected: ['gitlab__fork_repository'] },
  { query: 'create a bug label in the project', expected: ['gitlab__create_label'] },
  { query: 'who am I logged in as on gitlab', expected: ['gitlab__whoami'] },
  { query: 'give the issue a thumbs up', expected: ['gitlab__create_issue_emoji_reaction'] },
  { query: 'list the members of the project', expected: ['gitlab__list_project_members'] },
  { query: 'resolve the review thread on the merge request', expected: ['gitlab__resolve_merge_request_thread'] },
  // The demo workspace's plugin hooks
  { query: 'run the tests of packages/math', expected: ['jutsu_javascript__test'] },
  { query: 'lint the javascript code', expected: ['jutsu_javascript__lint'] },
  // Files
  { query: 'read the contents of README.md', expected: ['filesystem__read_text_file', 'filesystem__read_file'] },
  { query: 'write a new file with the release notes', expected: ['filesystem__write_file'] },
  { query: 'rename the file', expected: ['filesystem__move_file'] },
  { query: 'make a new folder called build', expected: ['filesystem__create_directory'] },
  { query: 'show the directory tree of the project', expected: ['filesystem__directory_tree'] },
  { query: 'find all files matching *.test.js', expected: ['filesystem__search_files'] },
  { query: 'replace a line in the config file', expected: ['filesystem__edit_file'] },
  { query: 'how big is this file and when was it modified', expected: ['filesystem__get_file_info'] },
  // Memory (a knowledge graph)
  { query: 'remember that Alice is the tech lead', expected: ['memory__create_entities', 'memory__add_observations'] },
  { query: 'link Alice to the payments project in the knowledge graph', expected: ['memory__create_relations'] },
  { query: 'what do you remember about Bob', expected: ['memory__search_nodes', 'memory__open_nodes'] },
  { query: 'forget everything about the old vendor', expected: ['memory__delete_entities'] },
  // The task board
  { query: 'create a task for the team to update the docs', expected: ['task__create'] },
  { query: 'what is the next task I should work on', expected: ['task__claim'] },
  { query: 'mark the task as done', expected: ['task__complete'] },
  { query: 'show all pending tasks', expected: ['task__list'] },
  { query: 'the task cannot be done, give up on it', expected: ['task__fail'] },
  { query: 'assign the task to agent-2', expected: ['task__assign'] },
  { query: 'attach the analysis to the task', expected: ['task__attach'] },
  // The hub
  { query: 'is the hub healthy', expected: ['system__health'] },
  { query: 'change the request timeout in the configuration', expected: ['system__config'] },
  { query: 'how many calls failed and how slow are the tools', expected: ['system__metrics'] },
  { query: 'keep my agent registered and alive', expected: ['system__heartbeat'] },
  // Handlers, agents and scripts of the demo workspace
  { query: 'save a note about the meeting', expected: ['notes__add'] },
  { query: 'find my notes tagged release', expected: ['notes__search'] },
  { query: 'count the words in this paragraph', expected: ['text__word_count'] },
  { query: 'start the reviewer agent on the diff', expected: ['agent__start'] },
  { query: 'what sub-agents are defined in this project', expected: ['agent__list'] },
  { query: 'run the todo-scan script', expected: ['script__start'] },
  // The everything server
  { query: 'add two numbers', expected: ['everything__get-sum'] },
  { query: 'echo back a message', expected: ['everything__echo'] },
  { query: 'print the environment variables', expected: ['everything__get-env'] },
  { query: 'compress a file with gzip', expected: ['everything__gzip-file-as-resource'] },
];

/** Written after the ranking was tuned on TASKS; its score says how well that tuning carries over. */
export const HELD_OUT = [
  {
    query: 'post a reply on the merge request discussion',
    expected: ['gitlab__create_merge_request_discussion_note'],
  },
  { query: 'close the issue', expected: ['gitlab__update_issue'] },
  { query: 'list the branches of the repository', expected: ['gitlab__list_branches'] },
  { query: 'get the details of issue 42', expected: ['gitlab__get_issue'] },
  { query: 'show the files changed in the merge request', expected: ['gitlab__list_merge_request_changed_files'] },
  { query: 'search for projects named payments', expected: ['gitlab__search_repositories'] },
  { query: 'list the labels of the project', expected: ['gitlab__list_labels'] },
  { query: 'list files in the src directory', expected: ['filesystem__list_directory'] },
  { query: 'read several files at once', expected: ['filesystem__read_multiple_files'] },
  { query: 'which directories am I allowed to access', expected: ['filesystem__list_allowed_directories'] },
  { query: 'delete the relation between Alice and Bob', expected: ['memory__delete_relations'] },
  { query: 'dump the whole knowledge graph', expected: ['memory__read_graph'] },
  { query: 'put the task back so someone else can take it', expected: ['task__unassign'] },
  { query: 'how many tasks were completed this week', expected: ['task__metrics'] },
  { query: 'start working on the assigned task', expected: ['task__start'] },
  { query: 'register this agent with the hub', expected: ['system__register'] },
  { query: 'what features does the hub offer', expected: ['system__capabilities'] },
  { query: 'cancel the running agent turn', expected: ['agent__cancel'] },
  { query: 'what scripts can I run', expected: ['script__list'] },
  { query: 'return a tiny image', expected: ['everything__get-tiny-image'] },
];

/** The 1-based rank of the first expected tool among `names`, or 0 when none is there. */
export function rankOf(task, names) {
  const i = names.findIndex((n) => task.expected.includes(n));
  return i + 1;
}

/**
 * Run every task through `search(query)` (resolving to the names returned, best first) and score it: the share
 * with the right tool first (`top1`) and in the first three (`top3`), and one row per task.
 */
export async function scoreSearch(search, tasks = TASKS) {
  const rows = [];
  for (const task of tasks) {
    const names = await search(task.query);
    rows.push({ ...task, names, rank: rankOf(task, names) });
  }
  const share = (ok) => rows.filter(ok).length / rows.length;
  return { rows, top1: share((r) => r.rank === 1), top3: share((r) => r.rank >= 1 && r.rank <= 3) };
}
