# 交互式会话的卡片、输入框、选择器与弹出框（host-cli/src/tui/）。
# 这里的每条消息都必须在 en/tui.ftl 中有同样的 id 与参数。

## 工具调用卡片（card.rs）
card-running = 运行中…
card-cancelled = 已取消
card-denied = 已拒绝
card-denied-reason = 已拒绝：{ $reason }
card-exit-code = 退出码 { $code }
card-killed = 已终止：{ $reason }
card-no-output = （无输出）
# 输出第一行之后：还有多少行，以及命令如何结束。
card-extra-lines = （+{ $count } 行）
card-extra-lines-end = （+{ $count } 行，{ $end }）
card-end = （{ $end }）
card-more-lines = … 还有 { $count } 行（Ctrl+T 查看完整记录）
card-more-arguments = … 还有 { $count } 个参数（Ctrl+T 查看完整记录）
card-and-more-files = {" "}及另外 { $count } 个文件

## 输入框（composer/）
# 折叠成一个整体的大段粘贴。
composer-paste-lines = [粘贴文本 #{ $number } +{ $lines } 行]
composer-paste-chars = [粘贴文本 #{ $number } +{ $chars } 字符]
composer-history-error = 输入历史 { $path }：{ $error }

## 会话选择器（picker.rs）
picker-title = 恢复会话
picker-keys = 输入以筛选 · ↑/↓ · Enter · Esc
picker-search = {"搜索："}
picker-no-match = 没有匹配的会话
# 跟在右对齐的数字之后：“  12 条消息”。
picker-messages = 条消息
picker-ago-seconds = { $n } 秒前
picker-ago-minutes = { $n } 分钟前
picker-ago-hours = { $n } 小时前
picker-ago-days = { $n } 天前

## /rewind 与 Esc Esc 的轮次选择器（turn_picker.rs）
rewind-picker-title = 回退到某一轮开头
rewind-picker-keys = ↑/↓ · Enter 文件+对话 · c 仅文件 · v 仅对话 · u 撤销回退 · Esc
rewind-picker-ran-shell = {"  "}（运行过 shell 命令：其改动不会撤销）

## /rewind、/fork、/tree（rewind.rs）
rewind-nothing = 还没有可回退的内容
rewind-busy = 有一轮正在运行：请等它结束后再回退（Esc 可取消）
rewind-usage = 用法：/rewind N [code|conversation|both] | /rewind undo
rewind-fork-busy = 有一轮正在运行：请等它结束后再分叉
rewind-fork-usage = 用法：/fork [N]
rewind-tree-error = 无法列出会话：{ $error }
rewind-tree-empty = 此工作区没有已保存的会话
rewind-tree-before-turn = {" "}（第 { $turn } 轮之前）
rewind-restored = 已恢复：{ $files }
rewind-deleted = 已删除：{ $files }
rewind-nothing-restored = 没有需要恢复的文件
rewind-not-restored = 未恢复：{ $file }
# $turns：一个或多个以逗号分隔的轮次编号。
rewind-shell-turns = 第 { $turns } 轮运行过 shell 命令：其改动未被跟踪，也没有撤销
rewind-conversation = 对话：{ $count } 条消息（/rewind undo 可撤销这次回退）

## /goal（goal.rs）
goal-none = 没有目标：/goal <objective> [--check <command>]… 可设定一个（每轮结束后运行检查；没有检查时由任务列表判定）
goal-not-pursued = 当前没有进行中的目标
goal-already = 已有进行中的目标：请先用 /goal clear 结束它
goal-needs-objective = /goal 需要在 --check 之前给出目标
goal-check-needs-command = /goal：--check 需要一条命令
# `/goal status`：标签补齐到十列，然后是它的值。
goal-label-goal = 目标
goal-label-judged = 判定依据
goal-label-check = 检查
goal-label-turns = 轮次
goal-label-state = 状态
goal-label-last = 最近
goal-checklist = 任务列表
goal-turns = { $turns }/{ $allowed } · { $tokens } 个 token
goal-state-checking = 检查中
goal-state-paused = 已暂停：{ $why }
goal-state-working = 进行中
# 状态栏中的一段。
goal-piece = 目标 { $turns }/{ $allowed }
goal-piece-paused = 目标已暂停
goal-set = 目标已设定：将持续工作直到达成（/goal pause、/goal status）
goal-paused-by-command = 通过 /goal pause
goal-paused = 目标已暂停：当前这一轮会继续完成；/goal resume 可继续
goal-resumed = 目标已恢复
goal-cleared = 目标已清除
goal-turn-cancelled = 这一轮被取消了
goal-turn-failed = 这一轮失败了（{ $result }）
goal-paused-why = 目标已暂停：{ $why }；/goal resume 可继续
goal-tool-missing = 未加载 `{ $tool }` 工具
goal-paused-tool-missing = 目标已暂停：它的检查需要 `{ $tool }` 工具，但该工具未加载
goal-checks-not-started = 它的检查无法启动
goal-paused-checks-failed = 目标已暂停：无法运行检查：{ $error }
goal-check-line = 目标检查 { $receipt }
goal-met = 目标已达成，用了 { $turns } 轮
goal-budget-spent = 轮次预算已用完
goal-not-met = 经过 { $turns } 轮仍未达成目标：轮次预算已用完；/goal resume 再给 { $more } 轮，/goal clear 结束它

## 运行中的子代理卡片（children.rs）
# 显示在选中的卡片最前面。
children-keys = Esc 停止它 · Enter 查看它的工作
# $last：" · " 加上正在运行或最近运行的工具调用，或者为空。
children-card = 子代理 { $label } · { $calls } 次调用，{ $secs } 秒{ $last }（{ $model }）
# Enter 写出的子代理工具调用记录。
children-tool-failed = ← { $name } 失败：{ $output }
children-tool-ok = ← { $name } 完成

## MCP 服务器：通知、/mcp、批准提问、`@server:` 补全（mcp/）
mcp-ready = MCP 服务器 `{ $name }` 已就绪：{ $tools } 个工具
mcp-failed = MCP 服务器 `{ $name }` 失败：{ $reason }
mcp-prompt-description = { $server } 的 MCP 提示词
mcp-empty-prompt = /{ $command }：服务器返回了空的提示词
mcp-reconnect-usage = /mcp reconnect <name>：可选 { $names }
mcp-none-waiting = 没有等待批准的 MCP 服务器
mcp-unknown-subcommand = /mcp { $word }：未知子命令；请使用 /mcp、/mcp reconnect <name> 或 /mcp approve
mcp-no-server-configured = （未配置任何 MCP 服务器）
mcp-no-such-server = /mcp reconnect：没有名为 `{ $name }` 的 MCP 服务器；已配置：{ $names }
mcp-server-disabled = MCP 服务器 `{ $name }` 已在配置中禁用
mcp-server-state = MCP 服务器 `{ $name }`：{ $state }
mcp-reconnecting = MCP 服务器 `{ $name }`：正在重新连接…
mcp-unknown-prompt = 未知命令 /{ $command }：没有已就绪的 MCP 服务器提供此提示词（见 /mcp）
mcp-prompt-thread-failed = 无法向 MCP 服务器请求提示词：{ $error }
mcp-left-stopped = 以下 MCP 服务器保持停止：{ $names }（/mcp approve 可启动它们）
mcp-approved-session-only = 仅在本会话内批准：{ $error }
mcp-none-waiting-any-more = 已没有等待批准的 MCP 服务器
mcp-starting = 正在启动 MCP 服务器：{ $names }
mcp-no-project-file = 项目中没有可记住的 .mcp.json
mcp-approved-later = 已为以后的会话批准 { $file }（`reasonix mcp untrust` 可撤回）
# 服务器配置所在的位置。
mcp-origin-local = 本地（用户 mcp.json，本工作区）
mcp-origin-project-toml = 项目 reasonix.toml
mcp-origin-project-mcp-json = 项目 .mcp.json
mcp-origin-user-toml = 用户 config.toml
mcp-origin-user-mcp-json = 用户 mcp.json
mcp-origin-package = 已安装的包
# 服务器状态，几个词说明。
mcp-state-disabled = 已禁用
mcp-state-untrusted = 未启动：工作区不受信任（`reasonix trust`）
mcp-state-not-approved = 未批准（/mcp approve）
mcp-state-starting = 正在启动…
mcp-state-ready = 就绪 · { $tools } 个工具 · { $prompts } 个提示词 · { $resources } 个资源
mcp-state-failed = 失败：{ $reason }
mcp-none-configured = 未配置 MCP 服务器（可用 `reasonix mcp add` 添加，或写入 .mcp.json）
mcp-heading = MCP 服务器：{ $total } 个中 { $ready } 个已就绪
mcp-restarted = {" "}· 已重启 { $count } 次
mcp-from = 来自 { $file }（{ $origin }）
mcp-reconnect-hint = /mcp reconnect <name> 可重新启动服务器
mcp-question-title = 启动此项目中的 { $count } 个 MCP 服务器吗？
mcp-question-warning = 它们会以你的权限作为程序运行
mcp-question-session = y  启动，仅限本会话
mcp-question-always = a  始终启动此 .mcp.json 当前内容中的服务器（文件变更后会再次询问）
mcp-question-no = n  不启动，保持停止（/mcp approve 会再次询问）
mcp-question-confirm-always = 再按一次 a（或 Enter）以始终启动它们；按其他键返回
# `@` 补全列表中 `server:` 之后的说明。
mcp-resource-count = （{ $count } 个 MCP 资源）

## 拟议或已做更改的差异（diff.rs）
diff-more = … 差异还有 { $more } 行
diff-created = 新建
diff-modified = 修改
diff-deleted = 删除
diff-binary = 二进制：{ $old } → { $new } 字节
diff-too-large = 太大，无法显示：{ $old } → { $new } 行

## /mode（mode.rs）
mode-current = 模式：{ $mode }（{ $names }）；用 /mode <名称> 切换
mode-set = 模式：{ $mode }
mode-effort-kept = 推理强度保持 { $effort }（由 /effort 或 --effort 选定）
mode-effort = 推理强度 { $effort }
mode-effort-unchanged = 推理强度未变（{ $error }）
mode-steps-fresh = 任务清单的步骤需在最后一次更改后通过检查
mode-steps-goal = 任务清单的步骤在目标模式下验证
mode-subagents = 子代理最多 { $depth } 层、同时 { $concurrency } 个、{ $writers } 个写入
## 权限摘要（mod.rs）
policy-no-rules = 无规则：读取类工具直接运行，写入与命令会询问
