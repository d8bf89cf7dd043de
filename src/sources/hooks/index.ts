// The hook tools (`hook.*`, ClaudeBench's hook__pre_tool, hook__post_tool, hook__user_prompt, hook__todo_write):
// the decisions Switchboard's own agent hooks make for Claude Code — plugin PreToolUse / PostToolUse rules, script
// rerouting — as tools, so any client, or another hub, can ask before it acts. Started after the plugins source,
// whose dispatch they use.
import type { Capability } from '../../core/capability.ts';
import { mayCallThrough } from '../../core/registry.ts';
import type { Source } from '../index.ts';
import type { PluginsSource } from '../plugins/index.ts';
import { hookPostTool } from './post-tool.ts';
import { hookPreTool } from './pre-tool.ts';
import type { HookDeciders } from './shared.ts';
import { hookTodoWrite } from './todo-write.ts';
import { hookUserPrompt } from './user-prompt.ts';

/** The hook tools; their schemas are module constants (why: src/snapshot-tools.ts). */
export function hookTools(deciders: HookDeciders): Capability[] {
  return [hookPreTool, hookPostTool, hookUserPrompt, hookTodoWrite].map(
    (make) => make(deciders) as unknown as Capability,
  );
}

export const hooksSource: Source = {
  name: 'hooks',
  start: async ({ services, env, sources }) => {
    const plugins = sources.get('plugins') as PluginsSource | undefined;
    if (!plugins) throw new Error('the hook tools need the plugins source, which starts before them (SOURCES)');
    const deciders: HookDeciders = {
      projectDir: services.projectDir,
      env,
      dispatch: plugins.dispatch,
      mayCall: (principal, capability) => mayCallThrough(services.registry, principal, capability),
    };
    const tools = hookTools(deciders);
    services.registry.batch(() => {
      for (const tool of tools) {
        const added = services.registry.add({ ...tool, source: 'builtin' });
        if (!added.ok) services.logger.warn(added.message);
      }
    });
    return {
      stop: () => {
        services.registry.batch(() => {
          for (const tool of tools) services.registry.remove(tool.name);
        });
      },
    };
  },
};
