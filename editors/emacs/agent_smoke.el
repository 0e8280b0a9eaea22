;;; agent_smoke.el --- batch check of grounded.el's end-of-turn handler  -*- lexical-binding: t; -*-
;; Run: emacs --batch -l editors/emacs/agent_smoke.el
;; Loads eglot and grounded.el, hands the handler a `grounded/agentFinished' notification
;; as the server sends it (interfaces.md, "The agent in the editor"), and prints the
;; *grounded agent* buffer: the answer, why the turn ended, the files it changed.
;; The connection is a pipe with no server behind it: this checks the handler, not the
;; protocol (tests/editor/editor_emacs_agent.rs).
(require 'eglot)
(load-file (expand-file-name "grounded.el" (file-name-directory load-file-name)))
(let ((s (make-instance 'grounded-server :name "smoke"
                        :process (make-pipe-process :name "smoke" :noquery t))))
  (eglot-handle-notification
   s 'grounded/agentFinished
   :turn 3 :status "done" :reason "the model answered"
   :answer "Added the footer to main.js." :changed ["main.js"])
  (princ (with-current-buffer "*grounded agent*" (buffer-string))))
;;; agent_smoke.el ends here
