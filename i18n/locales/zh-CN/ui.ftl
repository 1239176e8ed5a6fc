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
