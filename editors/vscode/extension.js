// Starts `backspin debug` (from PATH, or the `backspin.path` setting) as the debug adapter.
'use strict';
const vscode = require('vscode');

function activate(context) {
  const factory = {
    createDebugAdapterDescriptor(session) {
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
