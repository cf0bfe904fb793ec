// The names of what stays read-only wherever a command may write: the sandbox runtime's
// lists, and the agents' and editors' settings beyond them (see protected-paths.ts).

/**
 * Files that stay read-only wherever a command may write: shell start-up files, git's
 * own configuration, and files other tools run or trust. The same list as
 * `DANGEROUS_FILES` of `@anthropic-ai/sandbox-runtime` 0.0.83 (a test holds the two
 * equal), which that runtime does not export.
 */
export const PROTECTED_FILES: readonly string[] = [
  '.gitconfig',
  '.gitmodules',
  '.bashrc',
  '.bash_profile',
  '.zshrc',
  '.zprofile',
  '.profile',
  '.ripgreprc',
  '.mcp.json',
];

/**
 * Directories that stay read-only wherever a command may write: editors' settings and
 * an agent's commands. The runtime's `getDangerousDirectories()` (its
 * `DANGEROUS_DIRECTORIES` but `.git`, whose hooks and config are protected instead).
 */
export const PROTECTED_DIRECTORIES: readonly string[] = [
  '.vscode',
  '.idea',
  '.claude/commands',
  '.claude/agents',
];

/**
 * Folders of coding agents' and editors' project settings, beyond the runtime's lists,
 * that name commands those tools run outside any sandbox: Claude Code's `.claude` (hooks,
 * a status line, an API key helper in its settings), Cursor's `.cursor` (MCP servers,
 * hooks), Gemini CLI's `.gemini`, Qwen Code's `.qwen`, Codex's `.codex`, Zed's `.zed`
 * (context servers, tasks), Kiro's `.kiro`, Amazon Q's `.amazonq`, Continue's
 * `.continue`, Roo Code's `.roo`, Kilo Code's `.kilocode`, Windsurf's `.windsurf`,
 * opencode's `.opencode` (plugins it runs), Factory's `.factory`, Junie's `.junie` and
 * Trae's `.trae` (MCP servers). Each is held whole, so that no settings file can be
 * made in it: where it exists, wherever the shell's scan finds it; where it is missing,
 * at each writable root (and in a home folder there), by an empty read-only folder
 * standing in while the shell runs. The file tools refuse what lies in them wherever
 * they are.
 */
export const AGENT_CONFIG_DIRECTORIES: readonly string[] = [
  '.claude',
  '.cursor',
  '.gemini',
  '.qwen',
  '.codex',
  '.zed',
  '.kiro',
  '.amazonq',
  '.continue',
  '.roo',
  '.kilocode',
  '.windsurf',
  '.opencode',
  '.factory',
  '.junie',
  '.trae',
];

/**
 * Files of agents' project settings that name commands the agent runs outside any
 * sandbox (MCP servers, hooks, language servers): the `.mcp.json` of Claude Code and
 * others (also on the runtime's list), opencode's `opencode.json` and `opencode.jsonc`,
 * Crush's `crush.json` and `.crush.json`. Held as {@link PROTECTED_FILES} are, and, where
 * missing, the hidden ones at each writable root as the agents' folders are (see
 * {@link UNHELD_AGENT_FILES} for the others).
 */
export const AGENT_CONFIG_FILES: readonly string[] = [
  '.mcp.json',
  'opencode.json',
  'opencode.jsonc',
  'crush.json',
  '.crush.json',
];

/**
 * Of {@link AGENT_CONFIG_FILES}, those no folder stands in for where they are missing: a
 * stand-in shows in a plain `ls`, to the model and in the user's folder while the shell
 * runs. Made by a command at a writable folder, the repository guard moves them aside
 * after it, as it does the agents' settings one level down.
 */
export const UNHELD_AGENT_FILES: readonly string[] = AGENT_CONFIG_FILES.filter(
  (name) => !name.startsWith('.'),
);

/** {@link PROTECTED_FILES} and {@link AGENT_CONFIG_FILES}: the files held by name. */
export const HELD_FILES: readonly string[] = [
  ...new Set([...PROTECTED_FILES, ...AGENT_CONFIG_FILES]),
];

/**
 * Of the runtime's lists, what a writable folder holds whether it exists or not: what an
 * editor or an agent runs, or takes instructions from, on its own once it exists (a
 * `.vscode/tasks.json` run when the folder opens, a project's MCP servers), and the
 * {@link AGENT_CONFIG_DIRECTORIES} (which hold the runtime's `.claude/commands` and
 * `.claude/agents`). A missing one is held by an empty read-only folder standing in
 * while the shell runs, which git does not list; the rest of the lists is held where it
 * exists (a home folder holds them all: see `heldStartupPaths`).
 */
export const HELD_WHEN_MISSING: readonly string[] = [
  ...AGENT_CONFIG_FILES.filter((name) => name.startsWith('.')),
  '.vscode',
  '.idea',
  ...AGENT_CONFIG_DIRECTORIES,
];
