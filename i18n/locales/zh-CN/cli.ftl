# `reasonix --help` 的简体中文：en/cli.ftl 的译文（那边由各命令的文档注释生成）。
# 必须与 en/cli.ftl 保持同步（同样的消息、属性与顺序）：英文有改动时，在这里翻译改动的部分。

cli =
    终端里的编程代理，每项能力都是一个沙箱化的 WebAssembly 插件
    .after =
        与 Claude Code 一样，`reasonix -p "task" [flags]` 即 `reasonix run -p "task" [flags]`。
    .arg-trust-workspace =
        本次运行信任此工作区的 reasonix.toml：扩大插件、命令或凭据访问范围的设置将生效（见 `reasonix trust`）
    .arg-trust-mcp =
        本次运行允许启动项目 `.mcp.json` 中的服务器（见 `reasonix mcp trust`）
    .arg-model =
        模型引用：提供方名称、`provider/model` 或单独的模型名
    .arg-effort =
        推理强度（如 low、high、max）
    .arg-mode =
        运行模式：economy、balanced 或 delivery（优先于 `[agent] mode`；可用 `/mode` 切换）
    .arg-dir =
        工作区根目录（默认：`[sandbox] workspace_root`，否则为当前目录）
    .arg-add-dir =
        额外的可写目录，同 `[sandbox] allow_write`。可重复
    .arg-continue-latest =
        继续此工作区最近的会话
    .arg-resume =
        恢复会话：会话 id、id 前缀或标题中的文字；不给值时从列表中选择
    .arg-permission-mode =
        ask（默认）、acceptEdits、auto、dontAsk 或 bypassPermissions
    .arg-yolo =
        以 yolo 模式启动：除 `[permissions] deny` 阻止的之外，一切都会运行
    .arg-allowed-tools =
        本会话的允许规则，以逗号或空格分隔（如 `Edit,Bash(cargo test:*)`）
    .arg-max-steps =
        每轮最多的模型请求数（默认：`[agent] max_steps`，否则为 100）
    .arg-agent-composition =
        以代理组合 NAME（`[compositions.NAME]`）运行；`-c` 沿用会话自己的组合

cli-version =
    打印版本、WIT 契约版本和引擎

cli-plugin =
    查看插件

cli-plugin-list =
    所有插件：名称、版本、来源、角色、提供的服务、请求的与已授予的能力
    .arg-json =
        机器可读的输出

cli-plugin-install =
    从 .wasm 文件或目录安装组件（cargo crate 会先构建），安装前展示其请求的能力并取得授权
    .arg-source =
        组件（.wasm）、包含组件的目录，或要为 wasm32-wasip2 构建的 cargo crate
    .arg-sha256 =
        组件的预期 sha256（十六进制）；不匹配则拒绝
    .arg-yes =
        授予插件请求的全部能力，不再询问
    .arg-grants =
        授予一项能力（可重复）：workspace=read|read-write、network=PATTERN、env=NAME、process、memory_mib=MiB、call_timeout_ms=MS（超过默认值 256 MiB 和 60000 ms 的限制需要授权）。只授予插件同时请求了的能力
    .arg-name =
        组件自称的名称不是 NAME 时拒绝
    .arg-reference =
        对 git 来源：要安装的提交（或分支、标签，记录为其对应的提交）
    .arg-subdir =
        来源中存放该包的文件夹

cli-plugin-update =
    从记录的来源（或新来源）重新安装插件；仅当请求超出已授予的能力时才再次询问
    .arg-name =
        已安装的插件
    .arg-source =
        新版本的来源（默认：安装时的来源）
    .arg-sha256 =
        组件的预期 sha256（十六进制）；不匹配则拒绝
    .arg-yes =
        授予插件请求的全部能力，不再询问
    .arg-grants =
        授予一项能力（可重复）：workspace=read|read-write、network=PATTERN、env=NAME、process、memory_mib=MiB、call_timeout_ms=MS（超过默认值 256 MiB 和 60000 ms 的限制需要授权）。只授予插件同时请求了的能力
    .arg-reference =
        对来自 git 的包：要更新到的提交（或分支、标签）（默认：最新）

cli-plugin-info =
    单个插件的全部信息：描述、工具、类型、能力、限制、索引条目
    .arg-json =
        机器可读的输出

cli-plugin-show =
    单个已安装包的全部信息：来源、它带来的内容和运行的内容
    .arg-json =
        机器可读的输出

cli-plugin-doctor =
    检查一个已安装的包：文件是否与其哈希一致，以及是否仍能正常读取

cli-plugin-marketplace =
    市场（Claude Code 的 `.claude-plugin/marketplace.json`），可从中以 `entry@marketplace` 的形式安装包

cli-plugin-marketplace-add =
    添加市场：git 仓库（https、ssh、file://）或包含 `.claude-plugin/marketplace.json` 的文件夹。会保留其当前提交的副本

cli-plugin-marketplace-list =
    已知的市场及其条目

cli-plugin-marketplace-remove =
    移除一个市场（已安装的包保留）

cli-plugin-marketplace-update =
    重新获取市场（其最新提交）

cli-plugin-remove =
    移除已安装的插件：其文件、索引条目和编译产物

cli-plugin-enable =
    启用已安装的插件

cli-plugin-disable =
    禁用已安装的插件（保留但不加载）

cli-plugin-new =
    生成插件 crate 脚手架（Rust、reasonix-sdk），可用 `cargo build --release --target wasm32-wasip2` 构建
    .arg-name =
        插件（及 crate）名：小写字母、数字、`-`、`_`，以字母开头
    .arg-kind =
        插件提供的服务
    .arg-dir =
        要创建的目录（默认：./<name>）；必须不存在或为空
    .arg-sdk-path =
        依赖的 reasonix-sdk crate（默认：构建本程序的源码树中的 sdk/）

cli-plugin-wit =
    写出插件契约（WIT 包），供用其他语言编写组件
    .arg-out =
        写入 .wit 文件的目录（默认：./wit）

cli-tools =
    查看和调用工具

cli-tools-list =
    所有工具：名称、只读标志和规范的 JSON schema
    .arg-json =
        机器可读的输出

cli-tools-doc =
    以 Markdown 打印工具契约（即 `docs/TOOL_CONTRACT.md` 的内容）

cli-tools-call =
    调用一个工具，就像插件开发者测试它时那样。结果输出到 stdout（退出码 0）；工具错误输出到 stderr（退出码 1）
    .arg-name =
        工具名
    .arg-arguments =
        参数，一个 JSON 对象
    .arg-dir =
        工作区根目录（默认：`[sandbox] workspace_root`，否则为当前目录）

cli-providers =
    已配置的 LLM 提供方

cli-providers-list =
    所有已配置的提供方：类型及提供它的插件、端点、模型、API 密钥从何而来（绝不显示密钥）。有提供方的类型无插件提供时退出码为 1
    .arg-json =
        机器可读的输出

cli-providers-presets =
    `[[providers]]` 条目可基于的内置预设（`preset = "<id>"`）
    .arg-json =
        机器可读的输出

cli-providers-try =
    发送一条提示并流式输出回答：文本到 stdout，推理、重试和用量到 stderr
    .arg-model =
        模型引用：提供方名称、`provider/model` 或单独的模型名（默认：`default_model`）
    .arg-effort =
        推理强度（如 low、high、max；默认：提供方的设置）
    .arg-prompt =
        提示词

cli-doctor =
    检查安装和配置；有功能无法工作时退出码为 1
    .arg-json =
        机器可读的输出

cli-run =
    以无头模式运行一个任务直至完成：回答流式输出到 stdout，工具活动输出到 stderr。退出码：成功为 0，运行失败为 1，用法或配置错误为 2，最终回答被截断为 3，达到 `--timeout` 为 4
    .arg-task =
        任务。不提供时从 stdin 读取（当 stdin 不是终端时）
    .arg-model =
        模型引用：提供方名称、`provider/model` 或单独的模型名（默认：恢复会话时为会话的模型，否则为 `default_model`）
    .arg-fallback-model =
        主模型的请求在回答开始前彻底失败时，改用（仅一次）的模型（写法同 `--model`）
    .arg-max-steps =
        最多的模型请求数（默认：`[agent] max_steps`，否则为 100）
    .arg-dir =
        工作区根目录（默认：`[sandbox] workspace_root`，否则为当前目录）
    .arg-effort =
        推理强度（如 low、high、max；默认：提供方的设置）
    .arg-permission-mode =
        ask（默认）、acceptEdits、auto、dontAsk 或 bypassPermissions。`plan` 需要交互式会话
    .arg-auto =
        允许文件写入工具和 shell 命令运行，除非匹配 `ask` 规则（= `--permission-mode auto`）
    .arg-yolo =
        除 `[permissions] deny` 阻止的之外全部运行（= `--permission-mode bypassPermissions`）
    .arg-allowed-tools =
        本次运行的允许规则，以逗号或空格分隔（如 `Edit,Bash(cargo test:*)`）。其后的参数只要是指名已知工具的规则就一并读取，其余为任务（`--` 结束列表）。可重复
    .arg-disallowed-tools =
        本次运行的拒绝规则，追加到 `[permissions] deny`；写法同 `--allowed-tools`
    .arg-system-prompt =
        替换系统提示词中的 Reasonix 指导部分（同 `[agent] system_prompt`）
    .arg-system-prompt-file =
        从文件读取的 `--system-prompt`
    .arg-append-system-prompt =
        追加到系统提示词末尾的文本
    .arg-append-system-prompt-file =
        从文件读取的 `--append-system-prompt`
    .arg-add-dir =
        本次运行额外的可写目录，同 `[sandbox] allow_write`。可重复
    .arg-verbose =
        文本输出：在 stderr 显示模型的推理（= `--show-thinking`）。任何格式都接受，以兼容 Claude Code 的 `-p --output-format stream-json --verbose`
    .arg-output-format =
        text（默认）、json（一个结果对象）或 stream-json（每行一个 JSON 事件）
    .arg-print =
        文本输出：只打印最终回答
    .arg-show-thinking =
        文本输出：在 stderr 显示模型的推理
    .arg-timeout =
        整个运行超过此时长即结束（`90s`、`5m`、`1h` 或纯秒数；默认：`[agent] run_timeout`，否则不限）：退出码 4，并说明当时在等待什么
    .arg-json-schema =
        结构化输出：最终回答必须是一个符合此 JSON Schema 的 JSON 值（直接给出，或给出存放它的文件路径）；该值即结果中的 `structured_output`
    .arg-mode =
        运行模式：`economy`（低强度，较少子代理）、`balanced`（按配置原样）或 `delivery`（高强度，任务清单每一步都经验证）；优先于 `[agent] mode`
    .arg-max-budget-usd =
        会话花费达到这么多美元后不再发出模型请求（`error_max_budget_usd`，退出码 1）。模型必须以美元计价
    .arg-goal =
        目标模式：任务是一个跨多轮推进的目标，直到每条 `--goal-check` 命令都以 0 退出（若没有：任务清单每项都有证据地完成），或某项预算用尽（退出码 1，并说明是哪项）
    .arg-goal-check =
        `--goal` 的验收检查：宿主在每轮之后于沙箱中运行的 shell 命令；全部以 0 退出即达成目标。可重复
    .arg-goal-max-turns =
        `--goal`：最多轮数（默认 10）
    .arg-goal-max-tokens =
        `--goal`：所有轮次合计的输入加输出 token 上限
    .arg-input-format =
        `text`（任务来自参数或 stdin）或 `stream-json`：stdin 上以 JSON 行给出的用户消息，每条一轮，直到输入结束（需要 `--output-format stream-json`）
    .arg-include-partial-messages =
        stream-json 输出：在流式输出过程中给出含回答文本和思考内容的 `stream_event` 行
    .arg-session-id =
        新会话的 id（UUID）；配合 `--fork-session` 时为分叉出的会话的 id
    .arg-fork-session =
        与 `--resume`/`--continue` 一起使用：在新会话中继续（旧会话的副本，旧会话保持不变）
    .arg-no-session-persistence =
        不向会话存储写入任何内容（恢复的会话只读取）
    .arg-name =
        会话标题（用于 `sessions list`、`--resume TEXT`）
    .arg-tools =
        提供给模型的内置工具，以逗号或空格分隔，使用 Claude Code 的名称（`Bash,Read,Edit`）或我们的名称；`""` 表示不提供，`default` 表示全部。MCP 工具仍会提供。其后的参数只要是工具名就一并读取
    .arg-mcp-config =
        本次运行的 MCP 服务器，采用 Claude Code 的 `{"{"}"mcpServers": {"{"}…{"}"}{"}"}` 格式：文件或 JSON 本身。其后的参数只要是这种形式就一并读取；可重复。优先于配置中的同名服务器
    .arg-strict-mcp-config =
        只用 `--mcp-config` 的服务器：不用配置文件中的
    .arg-setting-sources =
        读取的 `settings.json` 文件，以逗号分隔：`user`（`~/.claude/settings.json`、`<home>/settings.json`）、`project`（`.claude/settings.json`、`.reasonix/settings.json`）、`local`（`.claude/settings.local.json`）。默认：全部
    .arg-settings =
        再加一份设置文档（文件或 JSON 本身），在上述文件之后读取；视为用户自己的设置，如同 `<home>/settings.json`
    .arg-continue-latest =
        继续此工作区最近的会话
    .arg-resume =
        继续会话：会话 id、id 前缀或标题中的文字
    .arg-agent-composition =
        以代理组合 NAME 运行（`[compositions.NAME]`：人设、工具、技能、MCP 服务器、包、更严格的规则）。继续的会话沿用其开始时的组合

cli-sessions =
    工作区保存的会话（对话记录）

cli-sessions-list =
    工作区的会话，最近更新的在前
    .arg-json =
        机器可读的输出
    .arg-dir =
        工作区根目录（默认：`[sandbox] workspace_root`，否则为当前目录）

cli-sessions-show =
    打印会话的对话内容（id、id 前缀或标题文字）

cli-sessions-export =
    将会话的对话写为 Markdown 或 JSON 行，或写出其对话记录（用于迁移到另一台机器：在那里运行 `sessions import --from FILE`）
    .arg-output =
        写入此文件（原子写入）而非 stdout

cli-sessions-rename =
    为会话设置标题（`sessions list` 和 `--resume` 会用到）

cli-sessions-delete =
    删除会话及其检查点和归档（会话打开时拒绝）

cli-sessions-fork =
    新建一个会话，共享截至某轮开始时的历史（不带 --turn 时共享全部）

cli-sessions-import =
    将对话记录加入此工作区的会话：用 `--format transcript` 导出的（来自另一台机器），或原版 Reasonix（Go）的记录（会经过转换）：取 `--from` 给出的，否则取状态目录下（`sessions-v4`）找到的全部
    .arg-from =
        一份对话记录（`<id>.jsonl`）或存放对话记录的目录；可重复

cli-sessions-tree =
    各会话及其分叉关系

cli-sessions-rewind =
    将文件和/或对话恢复到某轮开始时，或撤销上一次回退。shell 命令所做的更改不会被追踪
    .arg-code =
        仅文件
    .arg-conversation =
        仅对话
    .arg-both =
        文件和对话（默认）
    .arg-undo =
        撤销上一次回退

cli-trust =
    信任工作区：之后其 reasonix.toml 可扩大插件、命令和凭据的访问范围（沙箱根目录、网络、权限、提供方）。不带参数时信任当前目录
    .arg-dir =
        要信任的工作区（默认：当前目录），连同其中现有的 reasonix.toml 和项目 settings.json 文件（其中的钩子随之会运行）：其中一个改变后，它配置的内容重新变为不受信任，直到你审阅并再次信任
    .arg-remove =
        改为取消信任该目录
    .arg-list =
        打印受信任的目录

cli-hooks =
    来自 settings.json 文件的钩子（兼容 Claude Code）

cli-hooks-list =
    所有已配置的钩子：事件、触发点、匹配器、命令、来源文件，以及是否会运行（已受信任，且在本构建中会触发）
    .arg-json =
        机器可读的输出

cli-setup =
    选择提供方，保存其 API 密钥并进行测试（交互式；需要终端）

cli-mcp =
    MCP 服务器：添加、移除、列出、查看、导入；批准项目的 .mcp.json

cli-mcp-add =
    添加服务器：`add <name> [-e KEY=VALUE]... -- <command> [args...]`（stdio），或 `add --transport http|sse <name> <url> [-H "Name: value"]...`
    .arg-transport =
        连接服务器的方式
    .arg-scope =
        添加到哪里：`local`（你自己的，仅此工作区；默认，同 Claude Code）、`user`（你自己的，所有工作区）或 `project`（工作区的 .mcp.json）
    .arg-env =
        服务器进程（stdio）的一个环境变量，可重复。值中的 `${"{"}VAR{"}"}` 在服务器启动时展开
    .arg-headers =
        随每个请求发送的请求头（http、sse），可重复，如 `-H "Authorization: Bearer ${"{"}API_TOKEN{"}"}"`
    .arg-force =
        替换该文件中的同名服务器
    .arg-name =
        服务器名：字母、数字、`-` 和 `_`（工具名变为 `mcp__<name>__<tool>`）
    .arg-target =
        stdio：命令及其参数，放在 `--` 之后（以免其选项被当作我们的选项）；http 和 sse：URL

cli-mcp-add-json =
    从 JSON 条目添加服务器，格式与 Claude Code 所写的相同：`add-json <name> '<json>'`（如 '{"{"}"type":"http","url":"https://…"{"}"}' 或 '{"{"}"command":"npx","args":[…]{"}"}'）
    .arg-scope =
        添加到哪里：`local`（你自己的，仅此工作区；默认，同 Claude Code）、`user`（你自己的，所有工作区）或 `project`（工作区的 .mcp.json）
    .arg-force =
        替换该范围内的同名服务器
    .arg-name =
        服务器名：字母、数字、`-` 和 `_`（工具名变为 `mcp__<name>__<tool>`）
    .arg-json =
        条目：含 `command`（及 `args`、`env`、`cwd`）或 `type` 和 `url`（及 `headers`）的 JSON 对象，与 `.mcp.json` 中的一样

cli-mcp-remove =
    从定义该服务器的 mcp.json 文件中移除它
    .arg-scope =
        从哪个范围移除（仅当有多处定义它时需要）

cli-mcp-list =
    所有已配置的服务器：来源文件、传输方式、是否启用、项目文件的批准情况及状态（每个启用的服务器都会启动以统计其工具）
    .arg-json =
        机器可读的输出

cli-mcp-get =
    单个服务器的完整信息：命令和参数或 URL、环境变量名和请求头名（绝不显示其值）、超时、来源文件、状态和工具
    .arg-json =
        机器可读的输出

cli-mcp-import =
    从 Claude Code 的配置（~/.claude.json：其自身的服务器和此项目的服务器）或另一个 .mcp.json 文件复制服务器
    .arg-from =
        要导入的文件：.mcp.json，或 Claude Code 的用户配置（默认：~/.claude.json，导入其自身的服务器和此项目的服务器）
    .arg-scope =
        文件顶层 `mcpServers` 的去处（Claude Code 的用户服务器：默认为 `user`）。Claude Code 为此项目保存的服务器（`projects.<dir>`，即其 `local` 范围）总是成为此工作区的本地服务器，绝不会成为用户级或项目级服务器
    .arg-force =
        替换同名服务器，而不是跳过

cli-mcp-trust =
    批准此工作区当前的 .mcp.json：其服务器可以启动。文件改变后需重新批准

cli-mcp-untrust =
    撤回对此工作区 .mcp.json 的批准

cli-acp =
    在 stdin/stdout 上提供 Agent Client Protocol 服务，供会启动代理的编辑器使用（Zed、JetBrains、Neovim 插件）：会话、流式更新、带 diff 的工具调用、在编辑器中审批。docs/ACP.md

cli-serve =
    通过 HTTP 和服务器发送事件（SSE）提供会话协议服务（默认仅限回环地址；每个 API 请求都需要令牌）。docs/SERVE.md
    .arg-listen =
        监听地址（`ADDR:PORT`；端口 0 表示自动选择空闲端口）。仅在使用你自己设定的令牌时才可超出回环地址
    .arg-token =
        客户端发送的 bearer 令牌（默认：`REASONIX_SERVE_TOKEN`，否则为 `<home>/serve-token` 中的令牌，首次使用时生成，仅你可读）
    .arg-dir =
        客户端未指定时会话打开的文件夹（默认：当前文件夹）
    .arg-allowed-hosts =
        服务器认可的另一个主机名（反向代理的主机）；可重复

cli-skills =
    此工作区可见的技能（SKILL.md 文件夹）：列出全部，或查看其中一个

cli-skills-list =
    所有技能：名称、来源、调用方式、描述；然后列出被跳过的文件及原因
    .arg-json =
        机器可读的输出

cli-skills-show =
    单个技能：其文件夹、frontmatter 设置、文件和说明
    .arg-json =
        机器可读的输出
