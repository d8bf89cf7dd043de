// The fixture tools, resources and prompts the official MCP conformance suite calls, by their fixed names.
// Loaded like any user module (`serve --http --handlers test/conformance/handlers`); see test/conformance/run.mjs.
import {
  type CallContext,
  defineCapability,
  definePrompt,
  defineResource,
  defineResourceTemplate,
  inputRequired,
  rawResult,
  z,
} from 'switchboard-mcp';

/** 1×1 PNG and a minimal WAV, as the suite's reference fixture uses. */
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';
const WAV = 'UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=';

const none = z.object({});
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The `content` of an accepted elicitation answer under `key`, if the client sent one of the right shape. */
function accepted(ctx: CallContext, key: string): Record<string, unknown> | undefined {
  const answer = ctx.mcp?.inputResponses?.[key] as { action?: unknown; content?: unknown } | undefined;
  if (answer?.action !== 'accept' || typeof answer.content !== 'object' || answer.content === null) return undefined;
  return answer.content as Record<string, unknown>;
}

const askName = (message = 'What is your name?') =>
  ({
    method: 'elicitation/create',
    params: {
      message,
      requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
    },
  }) as const;
const askConfirm = {
  method: 'elicitation/create',
  params: {
    message: 'Please confirm',
    requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] },
  },
} as const;
const askSample = (text: string, maxTokens: number) =>
  ({
    method: 'sampling/createMessage',
    params: { messages: [{ role: 'user', content: { type: 'text', text } }], maxTokens },
  }) as const;
const askRoots = { method: 'roots/list', params: {} } as const;

// ---- content types ---------------------------------------------------------------------------------------

export const simpleText = defineCapability({
  name: 'test_simple_text',
  description: 'Tests simple text content response.',
  input: none,
  handle: () => 'This is a simple text response for testing.',
});

export const imageContent = defineCapability({
  name: 'test_image_content',
  description: 'Tests image content response.',
  input: none,
  handle: () => rawResult([{ type: 'image', data: PNG, mimeType: 'image/png' }]),
});

export const audioContent = defineCapability({
  name: 'test_audio_content',
  description: 'Tests audio content response.',
  input: none,
  handle: () => rawResult([{ type: 'audio', data: WAV, mimeType: 'audio/wav' }]),
});

export const embeddedResource = defineCapability({
  name: 'test_embedded_resource',
  description: 'Tests embedded resource content response.',
  input: none,
  handle: () =>
    rawResult([
      {
        type: 'resource',
        resource: {
          uri: 'test://embedded-resource',
          mimeType: 'text/plain',
          text: 'This is an embedded resource content.',
        },
      },
    ]),
});

export const multipleContentTypes = defineCapability({
  name: 'test_multiple_content_types',
  description: 'Tests response with multiple content types (text, image, resource).',
  input: none,
  handle: () =>
    rawResult([
      { type: 'text', text: 'Multiple content types test:' },
      { type: 'image', data: PNG, mimeType: 'image/png' },
      {
        type: 'resource',
        resource: {
          uri: 'test://mixed-content-resource',
          mimeType: 'application/json',
          text: JSON.stringify({ test: 'data', value: 123 }),
        },
      },
    ]),
});

// ---- logging, progress, errors ---------------------------------------------------------------------------

export const withLogging = defineCapability({
  name: 'test_tool_with_logging',
  description: 'Tests a tool that emits log messages during execution.',
  input: none,
  handle: async (_input, ctx) => {
    await ctx.log('info', 'Tool execution started');
    await sleep(50);
    await ctx.log('info', 'Tool processing data');
    await sleep(50);
    await ctx.log('info', 'Tool execution completed');
    return 'Tool with logging executed successfully';
  },
});

export const withProgress = defineCapability({
  name: 'test_tool_with_progress',
  description: 'Tests a tool that reports progress notifications.',
  input: none,
  handle: async (_input, ctx) => {
    for (const step of [0, 50, 100]) {
      await ctx.progress(step, 100, `Completed step ${step} of 100`);
      if (step < 100) await sleep(50);
    }
    return String(ctx.meta?.progressToken ?? 'no-progress-token');
  },
});

export const errorHandling = defineCapability({
  name: 'test_error_handling',
  description: 'Tests error response handling: always fails.',
  input: none,
  handle: () => {
    throw new Error('This tool intentionally returns an error for testing');
  },
});

// ---- server-to-client requests on 2025 sessions ----------------------------------------------------------

export const sampling = defineCapability({
  name: 'test_sampling',
  description: 'Tests server-initiated sampling (LLM completion request).',
  input: z.object({ prompt: z.string().describe('The prompt to send to the LLM') }),
  handle: async ({ prompt }, ctx) => {
    if (!ctx.client.sample) return 'Sampling not supported by this client.';
    try {
      const result = (await ctx.client.sample({
        messages: [{ role: 'user', content: { type: 'text', text: prompt } }],
        maxTokens: 100,
      })) as { content?: { text?: string } };
      return `LLM response: ${result.content?.text ?? 'No response'}`;
    } catch (err) {
      return `Sampling failed: ${(err as Error).message}`;
    }
  },
});

/** Elicit with `params`, and describe the answer (or the failure) as text. */
async function elicitText(ctx: CallContext, params: Record<string, unknown>, prefix: string): Promise<string> {
  if (!ctx.client.elicit) return 'Elicitation not supported by this client.';
  try {
    const result = (await ctx.client.elicit(params)) as { action?: string; content?: unknown };
    return `${prefix}: action=${result.action}, content=${JSON.stringify(result.content ?? {})}`;
  } catch (err) {
    return `Elicitation failed: ${(err as Error).message}`;
  }
}

export const elicitation = defineCapability({
  name: 'test_elicitation',
  description: 'Tests server-initiated elicitation (user input request).',
  input: z.object({ message: z.string().describe('The message to show the user') }),
  handle: ({ message }, ctx) =>
    elicitText(
      ctx,
      {
        message,
        requestedSchema: {
          type: 'object',
          properties: {
            username: { type: 'string', description: "User's response" },
            email: { type: 'string', description: "User's email address" },
          },
          required: ['username', 'email'],
        },
      },
      'User response',
    ),
});

export const elicitationDefaults = defineCapability({
  name: 'test_elicitation_sep1034_defaults',
  description: 'Tests elicitation with default values for every primitive type (SEP-1034).',
  input: none,
  handle: (_input, ctx) =>
    elicitText(
      ctx,
      {
        message: 'Please review and update the form fields with defaults',
        requestedSchema: {
          type: 'object',
          properties: {
            name: { type: 'string', description: 'User name', default: 'John Doe' },
            age: { type: 'integer', description: 'User age', default: 30 },
            score: { type: 'number', description: 'User score', default: 95.5 },
            status: {
              type: 'string',
              description: 'User status',
              enum: ['active', 'inactive', 'pending'],
              default: 'active',
            },
            verified: { type: 'boolean', description: 'Verification status', default: true },
          },
          required: [],
        },
      },
      'Elicitation completed',
    ),
});

export const elicitationEnums = defineCapability({
  name: 'test_elicitation_sep1330_enums',
  description: 'Tests elicitation with the five enum schema variants (SEP-1330).',
  input: none,
  handle: (_input, ctx) =>
    elicitText(
      ctx,
      {
        message: 'Please select options from the enum fields',
        requestedSchema: {
          type: 'object',
          properties: {
            untitledSingle: {
              type: 'string',
              description: 'Select one option',
              enum: ['option1', 'option2', 'option3'],
            },
            titledSingle: {
              type: 'string',
              description: 'Select one option with titles',
              oneOf: [
                { const: 'value1', title: 'First Option' },
                { const: 'value2', title: 'Second Option' },
                { const: 'value3', title: 'Third Option' },
              ],
            },
            legacyEnum: {
              type: 'string',
              description: 'Select one option (legacy)',
              enum: ['opt1', 'opt2', 'opt3'],
              enumNames: ['Option One', 'Option Two', 'Option Three'],
            },
            untitledMulti: {
              type: 'array',
              description: 'Select multiple options',
              minItems: 1,
              maxItems: 3,
              items: { type: 'string', enum: ['option1', 'option2', 'option3'] },
            },
            titledMulti: {
              type: 'array',
              description: 'Select multiple options with titles',
              minItems: 1,
              maxItems: 3,
              items: {
                anyOf: [
                  { const: 'value1', title: 'First Choice' },
                  { const: 'value2', title: 'Second Choice' },
                  { const: 'value3', title: 'Third Choice' },
                ],
              },
            },
          },
          required: [],
        },
      },
      'Elicitation completed',
    ),
});

// ---- schema, streams -------------------------------------------------------------------------------------

export const jsonSchema202012 = defineCapability({
  name: 'json_schema_2020_12_tool',
  description: 'Tool with JSON Schema 2020-12 features, advertised verbatim (SEP-1613, SEP-2106).',
  input: z.looseObject({}),
  inputJsonSchema: {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'object',
    $defs: {
      address: {
        $anchor: 'addressDef',
        type: 'object',
        properties: { street: { type: 'string' }, city: { type: 'string' } },
      },
    },
    properties: {
      name: { type: 'string' },
      address: { $ref: '#/$defs/address' },
      contactMethod: { type: 'string', enum: ['phone', 'email'] },
      phone: { type: 'string' },
      email: { type: 'string' },
    },
    allOf: [{ anyOf: [{ required: ['phone'] }, { required: ['email'] }] }],
    if: { properties: { contactMethod: { const: 'phone' } }, required: ['contactMethod'] },
    // biome-ignore lint/suspicious/noThenProperty: `then` is a JSON Schema 2020-12 keyword.
    then: { required: ['phone'] },
    else: { required: ['email'] },
    additionalProperties: false,
  },
  handle: (input) => `JSON Schema 2020-12 tool called with: ${JSON.stringify(input)}`,
});

export const xMcpHeader = defineCapability({
  name: 'test_x_mcp_header',
  description: 'Mirrors `region` into the Mcp-Param-Region header; the server checks they agree (SEP-2243).',
  input: z.object({ region: z.string().optional(), level: z.number().int().optional() }),
  inputJsonSchema: {
    type: 'object',
    properties: {
      region: { type: 'string', description: 'Mirrored into Mcp-Param-Region', 'x-mcp-header': 'Region' },
      level: { type: 'integer', description: 'Not mirrored' },
    },
  },
  handle: ({ region }) => `region=${region ?? '<none>'}`,
});

export const reconnection = defineCapability({
  name: 'test_reconnection',
  description: 'Closes its SSE stream mid-call; the client resumes with Last-Event-ID and gets the result (SEP-1699).',
  input: none,
  handle: async (_input, ctx) => {
    ctx.mcp?.closeStream?.();
    await sleep(100);
    return 'Reconnection test completed successfully. If you received this, the client properly reconnected after stream closure.';
  },
});

// ---- 2026-07-28 stateless diagnostics (SEP-2575) ---------------------------------------------------------

export const missingCapability = defineCapability({
  name: 'test_missing_capability',
  interactive: true,
  description: 'Requires the sampling client capability (asks for a completion through input_required).',
  input: none,
  handle: (_input, ctx) => {
    if (ctx.mcp?.inputResponses?.llm_answer !== undefined) return 'sampling round-trip complete';
    return inputRequired({ llm_answer: askSample('Reply with the single word: pong', 16) });
  },
});

export const streamingElicitation = defineCapability({
  name: 'test_streaming_elicitation',
  description: 'Answers on a response stream that carries no independent server-to-client requests.',
  input: none,
  handle: () => 'stream observed: result frames only, no top-level requests',
});

export const loggingTool = defineCapability({
  name: 'test_logging_tool',
  description: 'Logs through ctx.log; delivered only when the request asked for a log level.',
  input: none,
  handle: async (_input, ctx) => {
    await ctx.log('info', 'test_logging_tool ran');
    return 'logged through the request-scoped channel';
  },
});

export const triggerToolChange = defineCapability({
  name: 'test_trigger_tool_change',
  description: 'Changes the tool catalog (re-registers itself), so listeners get tools/list_changed.',
  input: none,
  handle: (_input, ctx) => {
    const { registry } = ctx.services;
    const self = registry.get('test_trigger_tool_change');
    if (self) registry.add(self.capability, { replace: true });
    return 'tools list changed';
  },
});

export const triggerPromptChange = defineCapability({
  name: 'test_trigger_prompt_change',
  description: 'Changes the prompt catalog (re-registers a prompt), so listeners get prompts/list_changed.',
  input: none,
  handle: (_input, ctx) => {
    const { registry } = ctx.services;
    const prompt = registry.getPrompt('test_simple_prompt');
    if (prompt) registry.addPrompt(prompt);
    return 'prompts list changed';
  },
});

// ---- the tasks extension (SEP-2663): long calls answered as tasks --------------------------------------------

export const greet = defineCapability({
  name: 'greet',
  description: 'Greets at once: never a task.',
  input: z.object({ name: z.string().default('World') }),
  handle: ({ name }) => `Hello, ${name}!`,
});

export const slowCompute = defineCapability({
  name: 'slow_compute',
  description: 'Works for the given number of seconds (a task when it takes long), stopping when cancelled.',
  input: z.object({ seconds: z.number().min(0).max(120).default(1), label: z.string().optional() }),
  task: 'optional',
  policy: { timeoutMs: 130_000 },
  handle: async ({ seconds, label }, ctx) => {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(resolve, seconds * 1000);
      ctx.signal.addEventListener('abort', () => {
        clearTimeout(timer);
        reject(ctx.signal.reason);
      });
    });
    return `Computed${label ? ` ${label}` : ''} in ${seconds} s.`;
  },
});

export const failingJob = defineCapability({
  name: 'failing_job',
  description: 'Always ends in a tool error, after a second (always a task).',
  input: none,
  task: 'required',
  handle: async () => {
    await sleep(1000);
    return rawResult([{ type: 'text', text: 'The job failed, as it always does.' }], { isError: true });
  },
});

export const protocolErrorJob = defineCapability({
  name: 'protocol_error_job',
  description: 'Fails unexpectedly (a protocol-level failure of its task).',
  input: none,
  task: 'optional',
  handle: async () => {
    await sleep(300);
    throw new Error('protocol_error_job failed inside the server');
  },
});

const askConfirmDelete = (filename: string, field: string) => ({
  message: `Delete ${filename}?`,
  requestedSchema: { type: 'object', properties: { [field]: { type: 'boolean' } }, required: [field] },
});

export const confirmDelete = defineCapability({
  name: 'confirm_delete',
  description: 'Asks the client to confirm, then deletes (nothing, really): a task that waits for its input.',
  input: z.object({ filename: z.string() }),
  task: 'optional',
  handle: async ({ filename }, ctx) => {
    const answer = (await ctx.client.elicit?.(askConfirmDelete(filename, 'confirm'))) as
      | { action?: string; content?: { confirm?: boolean } }
      | undefined;
    return answer?.action === 'accept' && answer.content?.confirm ? `Deleted ${filename}.` : `Kept ${filename}.`;
  },
});

export const multiInput = defineCapability({
  name: 'multi_input',
  description: 'Asks the client two questions at once, then answers with both.',
  input: none,
  task: 'optional',
  handle: async (_input, ctx) => {
    const [first, second] = await Promise.all([
      ctx.client.elicit?.(askConfirmDelete('first.txt', 'confirm')),
      ctx.client.elicit?.(askConfirmDelete('second.txt', 'confirm')),
    ]);
    return `Answers: ${JSON.stringify([first, second])}`;
  },
});

export const toolWithTask = defineCapability({
  name: 'test_tool_with_task',
  interactive: true,
  task: 'required',
  description: 'Asks for the caller name first (multi-round-trip), then greets as a task.',
  input: none,
  handle: (_input, ctx) => {
    const name = accepted(ctx, 'user_name')?.name;
    if (typeof name === 'string') return `Hello, ${name}!`;
    return inputRequired({ user_name: askName() });
  },
});

// ---- multi-round-trip requests (SEP-2322) ----------------------------------------------------------------

export const mrtrElicitation = defineCapability({
  name: 'test_input_required_result_elicitation',
  interactive: true,
  description: 'Asks for the caller name through an in-band elicitation request.',
  input: none,
  handle: (_input, ctx) => {
    const name = accepted(ctx, 'user_name')?.name;
    if (typeof name === 'string') return `Hello, ${name}!`;
    return inputRequired({ user_name: askName() });
  },
});

export const mrtrSampling = defineCapability({
  name: 'test_input_required_result_sampling',
  interactive: true,
  description: 'Asks for an LLM completion through an in-band sampling request.',
  input: none,
  handle: (_input, ctx) => {
    const answer = ctx.mcp?.inputResponses?.capital_question as { content?: { text?: unknown } } | undefined;
    if (answer === undefined)
      return inputRequired({ capital_question: askSample('What is the capital of France?', 100) });
    const text = typeof answer.content?.text === 'string' ? answer.content.text : JSON.stringify(answer);
    return `Sampling response: ${text}`;
  },
});

export const mrtrRoots = defineCapability({
  name: 'test_input_required_result_list_roots',
  interactive: true,
  description: 'Asks for the client roots through an in-band roots/list request.',
  input: none,
  handle: (_input, ctx) => {
    const answer = ctx.mcp?.inputResponses?.client_roots as { roots?: { uri?: string }[] } | undefined;
    if (!Array.isArray(answer?.roots)) return inputRequired({ client_roots: askRoots });
    return `Client exposed ${answer.roots.length} root(s): ${answer.roots.map((r) => r.uri).join(', ')}`;
  },
});

export const mrtrRequestState = defineCapability({
  name: 'test_input_required_result_request_state',
  interactive: true,
  description: 'Round-trips requestState alongside an elicitation request.',
  input: none,
  handle: (_input, ctx) => {
    if (accepted(ctx, 'confirm') && ctx.mcp?.requestState === 'awaiting-confirmation')
      return 'state-ok: requestState verified and confirmation received';
    return inputRequired({ confirm: askConfirm }, 'awaiting-confirmation');
  },
});

export const mrtrMultipleInputs = defineCapability({
  name: 'test_input_required_result_multiple_inputs',
  interactive: true,
  description: 'Asks for elicitation, sampling and roots input in a single round.',
  input: none,
  handle: (_input, ctx) => {
    const responses = ctx.mcp?.inputResponses ?? {};
    const name = accepted(ctx, 'user_name')?.name;
    const greeting = (responses.greeting as { content?: { text?: unknown } } | undefined)?.content?.text;
    const roots = (responses.client_roots as { roots?: unknown[] } | undefined)?.roots;
    if (typeof name === 'string' && typeof greeting === 'string' && Array.isArray(roots))
      return `${greeting} ${name} — ${roots.length} root(s) visible`;
    return inputRequired(
      { user_name: askName(), greeting: askSample('Generate a greeting', 50), client_roots: askRoots },
      'multiple-inputs',
    );
  },
});

export const mrtrMultiRound = defineCapability({
  name: 'test_input_required_result_multi_round',
  interactive: true,
  description: 'Two elicitation rounds with evolving requestState before completing.',
  input: none,
  handle: (_input, ctx) => {
    const state = JSON.parse(ctx.mcp?.requestState ?? '{"round":0}') as { round: number; name?: string };
    if (state.round === 0) return inputRequired({ step1: askName('Step 1: What is your name?') }, '{"round":1}');
    if (state.round === 1) {
      const name = String(accepted(ctx, 'step1')?.name ?? 'unknown');
      return inputRequired(
        {
          step2: {
            method: 'elicitation/create',
            params: {
              message: 'Step 2: What is your favorite color?',
              requestedSchema: { type: 'object', properties: { color: { type: 'string' } }, required: ['color'] },
            },
          },
        },
        JSON.stringify({ round: 2, name }),
      );
    }
    return `Multi-round complete: ${state.name} likes ${String(accepted(ctx, 'step2')?.color ?? 'unknown')}`;
  },
});

export const mrtrTamperedState = defineCapability({
  name: 'test_input_required_result_tampered_state',
  interactive: true,
  description: 'Its requestState is integrity-protected: a tampered echo is refused before the handler runs.',
  input: none,
  handle: (_input, ctx) => {
    if (ctx.mcp?.requestState === 'tamper-check' && accepted(ctx, 'confirm'))
      return 'integrity-ok: requestState verified';
    return inputRequired({ confirm: askConfirm }, 'tamper-check');
  },
});

export const mrtrCapabilities = defineCapability({
  name: 'test_input_required_result_capabilities',
  interactive: true,
  description: 'Requests only the input kinds the client declared capabilities for.',
  input: none,
  handle: (_input, ctx) => {
    if (ctx.mcp?.inputResponses !== undefined) return 'Capability-aware input requests fulfilled';
    const declared = ctx.mcp?.clientCapabilities ?? {};
    const requests: Parameters<typeof inputRequired>[0] = {};
    if (declared.elicitation !== undefined) requests.user_name = askName();
    if (declared.sampling !== undefined) requests.greeting = askSample('Generate a short greeting', 50);
    if (declared.roots !== undefined) requests.client_roots = askRoots;
    if (Object.keys(requests).length === 0) return 'No declared client capability supports an in-band input request';
    return inputRequired(requests);
  },
});

// ---- resources -------------------------------------------------------------------------------------------

export const staticText = defineResource({
  uri: 'test://static-text',
  name: 'static-text',
  title: 'Static Text Resource',
  description: 'A static text resource for testing.',
  mimeType: 'text/plain',
  read: () => [
    { uri: 'test://static-text', mimeType: 'text/plain', text: 'This is the content of the static text resource.' },
  ],
});

export const staticBinary = defineResource({
  uri: 'test://static-binary',
  name: 'static-binary',
  title: 'Static Binary Resource',
  description: 'A static binary resource (image) for testing.',
  mimeType: 'image/png',
  read: () => [{ uri: 'test://static-binary', mimeType: 'image/png', blob: PNG }],
});

export const watched = defineResource({
  uri: 'test://watched-resource',
  name: 'watched-resource',
  title: 'Watched Resource',
  description: 'A resource for subscribe/unsubscribe testing.',
  mimeType: 'text/plain',
  read: () => [{ uri: 'test://watched-resource', mimeType: 'text/plain', text: 'Watched resource content' }],
});

export const template = defineResourceTemplate({
  uriTemplate: 'test://template/{id}/data',
  name: 'template',
  title: 'Resource Template',
  description: 'A resource template with parameter substitution.',
  mimeType: 'application/json',
  read: (uri, { id }) => [
    {
      uri,
      mimeType: 'application/json',
      text: JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` }),
    },
  ],
});

// ---- prompts ---------------------------------------------------------------------------------------------

export const simplePrompt = definePrompt({
  name: 'test_simple_prompt',
  title: 'Simple Test Prompt',
  description: 'A simple prompt without arguments.',
  get: () => ({
    messages: [{ role: 'user', content: { type: 'text', text: 'This is a simple prompt for testing.' } }],
  }),
});

export const promptWithArguments = definePrompt({
  name: 'test_prompt_with_arguments',
  title: 'Prompt With Arguments',
  description: 'A prompt with required arguments.',
  args: z.object({
    arg1: z.string().describe('First test argument'),
    arg2: z.string().describe('Second test argument'),
  }),
  get: ({ arg1, arg2 }) => ({
    messages: [
      { role: 'user', content: { type: 'text', text: `Prompt with arguments: arg1='${arg1}', arg2='${arg2}'` } },
    ],
  }),
  complete: () => [],
});

export const promptWithEmbeddedResource = definePrompt({
  name: 'test_prompt_with_embedded_resource',
  title: 'Prompt With Embedded Resource',
  description: 'A prompt that includes an embedded resource.',
  args: z.object({ resourceUri: z.string().describe('URI of the resource to embed') }),
  get: ({ resourceUri }) => ({
    messages: [
      {
        role: 'user',
        content: {
          type: 'resource',
          resource: { uri: resourceUri, mimeType: 'text/plain', text: 'Embedded resource content for testing.' },
        },
      },
      { role: 'user', content: { type: 'text', text: 'Please process the embedded resource above.' } },
    ],
  }),
});

export const promptWithImage = definePrompt({
  name: 'test_prompt_with_image',
  title: 'Prompt With Image',
  description: 'A prompt that includes image content.',
  get: () => ({
    messages: [
      { role: 'user', content: { type: 'image', data: PNG, mimeType: 'image/png' } },
      { role: 'user', content: { type: 'text', text: 'Please analyze the image above.' } },
    ],
  }),
});

export const mrtrPrompt = definePrompt({
  name: 'test_input_required_result_prompt',
  title: 'MRTR Prompt',
  description: 'A prompt that asks for context through elicitation before rendering (SEP-2322).',
  get: (_args, ctx) => {
    const context = accepted(ctx, 'user_context')?.context;
    if (typeof context !== 'string')
      return inputRequired({
        user_context: {
          method: 'elicitation/create',
          params: {
            message: 'What context should the prompt use?',
            requestedSchema: { type: 'object', properties: { context: { type: 'string' } }, required: ['context'] },
          },
        },
      });
    return { messages: [{ role: 'user', content: { type: 'text', text: `Use the following context: ${context}` } }] };
  },
});
