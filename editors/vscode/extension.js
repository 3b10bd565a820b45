// Starts `backspin debug` (from PATH, or the `backspin.path` setting) as the debug adapter,
// or, for an attach, connects to a window started with `--debug-port PORT`.
'use strict';
const vscode = require('vscode');

function activate(context) {
  const factory = {
    createDebugAdapterDescriptor(session) {
      if (session.configuration.request === 'attach') {
        return new vscode.DebugAdapterServer(session.configuration.port || 4711);
      }
      const executable =
        session.configuration.backspinPath ||
        vscode.workspace.getConfiguration('backspin').get('path') ||
        'backspin';
      return new vscode.DebugAdapterExecutable(executable, ['debug']);
    },
  };
  context.subscriptions.push(vscode.debug.registerDebugAdapterDescriptorFactory('backspin', factory));
}

module.exports = { activate, deactivate() {} };
