;;; grounded.el --- grounded language server for Emacs via eglot  -*- lexical-binding: t; -*-

;; Add to your init file (Emacs 29+ ships eglot; older: M-x package-install RET eglot):
;;   (load "/path/to/editors/emacs/grounded.el")
;;
;; Nothing here depends on progress reports or code-action resolve (eglot 1.9 has
;; neither): diagnostics are pushed, and every code action carries its edit.

;;; Code:

(require 'eglot)

(defgroup grounded nil
  "Check engine scripts against the engine's documentation."
  :group 'tools)

(defcustom grounded-command '("grounded" "serve")
  "The command that starts the grounded language server."
  :type '(repeat string))

(defcustom grounded-settings '(:debounceMs 50 :dryRun (:enabled t :budgetMs 2000))
  "Settings sent as initializationOptions and answered to workspace/configuration.
Keys: :docs (corpus path), :debounceMs, :dryRun (:enabled :budgetMs :idleMs)."
  :type 'plist)

(defclass grounded-server (eglot-lsp-server) ()
  :documentation "The grounded language server.")

(cl-defmethod eglot-initialization-options ((_server grounded-server))
  grounded-settings)

(add-to-list 'eglot-server-programs
             `((js-mode js-ts-mode javascript-mode) . (grounded-server . ,grounded-command)))

;; workspace/configuration is answered from this (section "grounded"). The alist form
;; is the one eglot 1.9 reads; later versions read it too.
(setq-default eglot-workspace-configuration
              `((:grounded . ,grounded-settings)))

(provide 'grounded)
;;; grounded.el ends here
