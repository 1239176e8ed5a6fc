# 交互式会话中斜杠命令输出的内容（host-cli/src/tui/actions.rs、app.rs）。
