// A start-up child: the app of startup-app-agenttool.ts, with agenttool/code-cache
// imported before it (which turns on Node's compile cache in XDG_CACHE_HOME).
import 'agenttool/code-cache';
import './startup-app-agenttool';
