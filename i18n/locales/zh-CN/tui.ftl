# 交互式会话的卡片、输入框、选择器与弹出框（host-cli/src/tui/）。
