# Reasonix 的用户界面，简体中文。与 en.ftl 一一对应（同样的消息、属性与参数）：
# `cargo test -p reasonix-i18n` 会检查。添加字符串的方法见 docs/I18N.md。

language-name = 简体中文
test-greeting = 你好，{ $name }！

## `--help`：clap 自带的词（各命令的说明在 cli.ftl）
cli-heading-usage = 用法：
cli-heading-options = 选项
cli-heading-arguments = 参数
cli-heading-commands = 命令
cli-flag-help = 显示帮助
cli-flag-version = 显示版本

## 状态栏
status-context = 上下文 { $used }/{ $window }
status-context-used = 上下文 { $used }
status-cache = 缓存 { $percent }%
posture-ask = 询问
posture-accept-edits = 接受编辑
posture-auto = 自动
posture-dont-ask = 不询问
posture-yolo = YOLO
posture-plan = 计划
mode-economy = 经济
mode-balanced = 均衡
mode-delivery = 交付

## 审批
approval-subagent-before = {"子代理 "}
approval-subagent-after = {" 请求："}
approval-allow-before = {"允许 "}
approval-allow-after = {"？  "}
approval-once = y  允许，仅这一次
approval-session = a  允许，本会话内：{ $scope }
approval-always = p  始终允许 { $scope }（写入 { $file } 的 [permissions] allow）
approval-deny = n  拒绝，并告诉模型原因（输入说明后按 Enter）
approval-confirm-always = {"  "}再按一次 p 将 { $scope } 永久写入 { $file }；按其他键返回
approval-typeahead = {"  "}提问前输入的内容保留在输入框中；稍作停顿后的按键才算作回答
approval-note = {"  给模型的说明："}
approval-plan-title = 批准这个计划吗？  目前尚未做任何更改
approval-plan-more = {"  "}… 计划还有 { $more } 行
approval-plan-ask = y  批准，执行时更改前先询问
approval-plan-auto = a  批准，以自动模式执行
approval-plan-keep = n  不批准，继续规划（输入给模型的说明后按 Enter）
approval-arguments-more = {"  "}… 参数还有 { $more } 行

## 首次运行设置
setup-title = Reasonix 设置
setup-step-pick = 1/3 选择提供方
setup-step-custom = 1/3 自定义端点
setup-step-key = 2/3 API 密钥
setup-step-test = 3/3 测试
setup-step-done = 完成
setup-step-write-failed = 无法保存
setup-keys-pick = ↑/↓ 选择 · Enter 确定 · Esc 退出
setup-keys-field = 输入或粘贴 · Enter 下一步 · Ctrl-U 清空 · Esc 返回
setup-keys-key = 粘贴或输入 · Enter 测试 · Ctrl-U 清空 · Esc 返回
setup-keys-testing = Esc 停止
setup-keys-passed = Enter 保存 · r 再测一次 · e 修改 · Esc 返回
setup-keys-failed = r 重试 · e 修改 · s 仍然保存 · Esc 返回
setup-keys-done = Enter 继续
setup-keys-write-failed = r 重试 · Esc 退出
setup-base-url-prompt = OpenAI 兼容 API 的 Base URL（…/v1）：
setup-base-url = Base URL：{ $url }
setup-model-prompt = 模型 id：
setup-key-prompt-custom = API 密钥（保存为 { $env }；端点不需要密钥时留空）：
setup-key-prompt = 粘贴你的 API 密钥（保存为 { $env }）：
setup-testing = 正在发送一个简短请求进行测试…
setup-test-passed = ✓ 提供方已应答。
setup-enter-saves = 按 Enter 保存设置。
setup-test-failed = ✗ 测试失败：
setup-failed-choices = r 重试，e 修改，s 不经测试直接保存。
setup-done = ✓ 设置完成。
setup-done-config = 配置：
setup-done-key = 密钥 { $env }：
setup-done-model = 默认模型：{ $model }
setup-done-again = 如需更改，请再次运行 `reasonix setup`。
setup-write-failed = ✗ 无法保存：
setup-pick-question = Reasonix 应使用哪个 LLM 提供方？
setup-custom = 自定义
setup-found-environment = 环境变量
setup-found-key = 在{ $place }中找到 { $env }，将直接使用
setup-key-found = 已找到密钥
setup-provider = {"提供方："}
setup-preset-custom = 自定义 OpenAI 兼容端点（需填写 Base URL 和模型）
setup-preset-deepseek = DeepSeek 官方 API（OpenAI 兼容的 chat completions）
setup-preset-openai = OpenAI API（chat completions）
setup-preset-anthropic = Anthropic Messages API
setup-preset-kimi = 月之暗面 Kimi（OpenAI 兼容）；kimi-k3 使用 reasoning_effort low|high|max
setup-preset-qwen = 阿里云百炼 DashScope 上的通义千问（OpenAI 兼容模式）
setup-preset-glm = 智谱 GLM（BigModel，OpenAI 兼容）；thinking enabled|disabled
setup-preset-minimax = MiniMax M 系列（OpenAI 兼容）；thinking adaptive|disabled
setup-preset-openrouter = OpenRouter 网关（OpenAI 兼容）；模型 id 含 '/'
setup-preset-ollama = 本地 Ollama 服务（OpenAI 兼容，无需密钥）；请把 `model` 设为已拉取的模型
setup-preset-llamacpp = 本地 llama.cpp 服务（llama-server，OpenAI 兼容，无需密钥）

## 斜杠命令：/help 与补全菜单中的说明（slash-<name>）
slash-help = 列出命令与按键
slash-new = 开始新会话（当前会话会保存）
slash-clear = 丢弃本次对话的上下文，不保存
slash-resume = 选择一个早先的会话继续
slash-model = 查看或切换模型
slash-effort = 查看或设置推理强度
slash-mode = 查看或设置运行模式（economy、balanced、delivery）
slash-goal = 围绕一个目标持续工作，直到检查通过
slash-status = 模型、权限姿态、工作区与会话
slash-cost = 本会话的 token、缓存命中与费用
slash-permissions = 查看当前生效的权限规则
slash-plugins = 已安装的插件
slash-mcp = MCP 服务器：状态、重连、批准项目的服务器
slash-tools = 模型可调用的工具
slash-agents = `task` 可运行的子代理配置（内置、你的、项目的）
slash-skills = 技能：各自来源，以及是否提供给模型
slash-agent = 代理组合；带名称时以该组合开始新会话
slash-sessions = 本工作区的会话
slash-memory = 已保存的事实：本项目的与你的（在相关的轮次中召回）
slash-remember = 保存一条供以后会话使用的事实（也可用单行 `# 事实`）
slash-forget = 归档一条已保存的事实
slash-rewind = 回到某一轮：文件、对话或两者
slash-fork = 在本会话的副本中继续（第 N 轮之前）
slash-tree = 本工作区的会话及其分支
slash-compact = 立即把较早的工作折叠为摘要（可用重点说明引导）
slash-init = 与模型一起为本项目写一份初始 REASONIX.md
slash-quit = 退出 Reasonix
slash-help-commands = 命令
slash-help-custom = 自定义命令
slash-help-skills = 技能
slash-help-mcp-prompts = MCP 提示
slash-help-also = 也可用 { $aliases }
slash-help-untrusted = 未受信任的工作区

## 会话开头的横幅
banner-as = {"  "}以 { $name } 身份
banner-keys = { $workspace }  ·  /help 查看命令，Shift+Tab 切换权限姿态，Ctrl+D 退出
setup-problem-base-url = 请输入端点的 Base URL，例如 http://localhost:8080/v1
setup-problem-bad-url = Base URL { $error }
setup-problem-model = 请输入端点提供的模型 id
setup-problem-model-spaces = 模型 id 不能含空格
setup-problem-key = 请粘贴 API 密钥（Esc 返回）
setup-test-stopped = 测试已停止，未收到回答

## 进行中的轮次、工具调用列表（draw.rs、calls.rs）
turn-cancelling = 正在取消
turn-saving = 正在保存
turn-waiting-provider = 正在等待提供方（已 { $seconds } 秒无数据）
turn-working = 正在处理
turn-esc-cancels = {"  （Esc 取消）"}
turn-ctrl-c-again = 再按一次 Ctrl+C 退出（或按 Ctrl+D）
calls-title = {"本会话的工具调用  "}
calls-keys = ↑/↓ · Enter 查看全文 · Esc
calls-none = {"  暂无"}
turn-thinking = {"  "}∴ 正在思考…（{ $lines } 行，Ctrl+O 显示）
turn-more-questions = （还有 { $count } 个问题等待回答）
turn-queued = {"  "}已排队：{ $text }
