# 交互式会话中斜杠命令输出的内容（host-cli/src/tui/actions.rs、app.rs）。

## /help
cmd-help-keys = 按键：Enter 发送 · Shift+Enter/Ctrl+J 换行 · ↑/↓ 历史 · @ 文件 · !cmd 执行 shell · Esc 取消 · Esc Esc 回退 · Shift+Tab 询问→接受编辑→自动→计划 · ↓ 选择子代理（Esc 停止它） · Ctrl+Y YOLO · Ctrl+O 推理过程 · Ctrl+E 最近的工具调用 · Ctrl+T 工具调用 · Ctrl+C 两次 / Ctrl+D 退出

## 句中列表的分隔符
cmd-list-separator = 、

## /memory、/remember、/forget、`# fact`
cmd-memory-title = 记忆（{ $count } 条事实）
cmd-memory-scope-project = 项目
cmd-memory-scope-user = 用户
cmd-memory-empty = 尚未保存任何内容：使用 /remember <fact> 或 `# fact`；模型通过 `remember` 保存
cmd-memory-hint = /forget <id> 可归档一条；模型通过 `memory` 搜索它们
cmd-remember-needs-fact = /remember 需要写明要保存的事实
cmd-remember-saved = 已保存为 { $id }；消息与之相关时会被召回（/memory 列出，/forget { $id } 归档）
cmd-remember-known = 已保存过，id 为 { $id }
cmd-forget-needs-id = /forget 需要事实的 id（见 /memory）
cmd-forget-done = 已忘记 { $id }（{ $text }）；其文件保留在归档中
cmd-forget-unknown = 没有已保存的事实 `{ $id }`（见 /memory）

## /sessions、/resume
cmd-sessions-none = 此工作区没有已保存的会话
cmd-sessions-row = {"  "}{ $id }  { $count } 条消息  { $model }  { $title }
cmd-sessions-hint = 用 /resume <id> 打开其中一个
cmd-sessions-failed = 无法列出会话：{ $error }

## /effort
cmd-effort-default = 提供方的默认值
cmd-effort-current = 推理强度：{ $effort }（用 /effort <level> 设置，`auto` 表示默认）
cmd-effort-set = 推理强度：从下一个请求起为 { $effort }

## /status：标签按显示宽度对齐到同一列
cmd-status-session = 会话
cmd-status-model = 模型
cmd-status-posture = 权限姿态
cmd-status-mode = 模式
cmd-status-workspace = 工作区
cmd-status-context = 上下文
cmd-status-tokens = token
cmd-status-cache = 缓存
cmd-status-cost = 费用
cmd-status-context-value = { $used } / { $window }
cmd-status-context-assumed = { $window }（假定值：模型的上下文窗口未知；请设置 `context_window`）
cmd-status-tokens-value = 输入 { $input }，输出 { $output }
cmd-status-cache-value = 提示词 token 中 { $percent }% 命中提供方缓存
cmd-status-cache-none = 未报告

## /cost（及 /status 的末尾）
cmd-cost-session = 本会话：{ $cost }
cmd-cost-no-prices = 此模型未配置价格（[[providers]] price）
cmd-cost-model = {"  "}{ $model }：{ $requests } 次请求，输入 { $input }（缓存命中 { $cached }），输出 { $output }，{ $cost }
cmd-cost-partly-unpriced = { $cost }（{ $count } 次请求未计价）
cmd-cost-unpriced = 未计价

## /permissions
cmd-permissions-posture = 权限姿态：{ $posture }
cmd-permissions-session-grant = {"  "}会话 { $number } { $rule }
cmd-permissions-revoke-hint = {"  "}/permissions revoke <N> 可收回一项会话授权
cmd-permissions-revoked = 已撤销本会话的授权：{ $rule }（此类调用将再次询问）
cmd-permissions-nothing-to-revoke = 没有可撤销的会话授权（配置文件中的规则请在文件中修改）
cmd-permissions-revoke-usage = /permissions revoke <N|rule>：可选 { $grants }

## /plugins
cmd-plugins-tools = 工具：{ $tools }
cmd-plugins-interceptor = 拦截器

## /agents
cmd-agents-built-in = 内置
cmd-agents-from = {"  "}（{ $from }）
cmd-agents-skipped = {"  "}已跳过：{ $problem }
cmd-agents-hint = 模型通过 `task`（profile）选用其中之一；↓ 选择运行中的子代理，Esc 停止它

## /skills
cmd-skills-title = 技能（{ $count }）
cmd-skills-by-model = 模型
cmd-skills-untrusted = 不受信任的工作区
cmd-skills-how = {"  "}（{ $scope }；{ $how }）
cmd-skills-skipped = {"  "}已跳过：{ $warning }
cmd-skills-none = 没有技能：技能是 .claude/skills、.reasonix/skills 或 ~/.claude/skills 中含 SKILL.md 的文件夹（docs/SKILLS.md）
cmd-skills-scope-user = 用户
cmd-skills-scope-user-claude = 用户，~/.claude
cmd-skills-scope-user-agents = 用户，~/.agents
cmd-skills-scope-custom = [skills] paths
cmd-skills-scope-project = 项目
cmd-skills-scope-project-claude = 项目，.claude
cmd-skills-scope-project-agents = 项目，.agents
cmd-skills-scope-package = 包

## /agent
cmd-agent-already = 本会话已经以组合 { $name } 运行
cmd-agent-turn-running = 有一轮对话正在进行：切换前请等待它结束或将其停止（Esc）
cmd-agent-title = 代理组合：{ $name }
cmd-agent-title-none = 代理组合：无（按配置原样运行）
cmd-agent-hint = 会话会保持其组合；`/agent NAME` 会离开当前会话（已保存），并以 NAME 开始新会话

## /model、/compact、未知命令
cmd-model-title = 模型：{ $model }（用 /model <provider/model> 切换）
cmd-compact-started = 正在压缩历史…
cmd-unknown = 未知命令 /{ $name }（试试 /help）

## `!cmd`
cmd-bang-no-shell = `!` 需要 shell 工具，但它未加载
cmd-bang-failed = 无法启动命令：{ $error }

## 会话进行中显示的内容（host-cli/src/tui/app.rs、transcript.rs）
app-no-preview = 此更改没有预览：{ $reason }
app-no-tool-call = 还没有可显示的工具调用
app-child-stopping = 正在停止子代理 { $label }
app-child-finished-already = 子代理 { $label } 已经结束
app-child-so-far = 子代理 { $label } 目前的进展：
app-child-nothing-yet = {"  "}（尚无内容）
app-yolo = YOLO：所有调用都不经询问直接运行，deny 规则阻止的除外（Ctrl+Y 退出）
app-queued = 已排队；本轮结束后发送（{ $waiting } 条等待中）
app-cancelled = 已取消
app-max-steps = 已在 { $steps } 次模型请求后停止（--max-steps）；回复“继续”即可接着做
app-new-session = 新会话 { $id }
app-resumed-session = 已恢复会话 { $id }（{ $count } 条消息）
app-model-changed = 模型：{ $model }
app-retrying = { $delay } 秒后重试（{ $attempt }/{ $max }）：{ $reason }
app-subagent-started = ⇢ 子代理 { $label }（{ $model }）
app-subagent-finished = ⇠ 子代理 { $label }：{ $status }（{ $steps } 次请求）
app-child-tool-failed = {"  "}↳ [{ $label }] { $name } 失败：{ $first }
app-reasoning-folded-from-now = 从现在起推理过程折叠显示（Ctrl+O 展开）
app-reasoning-shown-from-now = 从现在起完整显示推理过程（Ctrl+O 折叠）
app-reasoning-latest = {"  "}∴ 最近一轮的推理过程
app-reasoning-folded = {"  "}∴ { $first }（{ $count } 行推理，Ctrl+O 展开）
app-history-earlier = … 更早的 { $count } 条消息（reasonix sessions list）
cmd-remember-file = 已写入 { $file }（本项目的每个会话都会读取）
