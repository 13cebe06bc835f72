// x402 payment page: pay for this URL from an injected EIP-1193 wallet.
//
// Finds the browser's wallets by EIP-6963 (each announces itself with an
// eip6963:announceProvider event, in answer to eip6963:requestProvider),
// else uses window.ethereum. Reads the 402 answer (#x402-payment-required)
// and the page settings (#x402-config), then on "Pay": lets the person
// choose when several wallets announced (once for the page's life),
// connects the wallet (eth_requestAccounts),
// switches it to the payment's chain (wallet_switchEthereumChain, adding the
// chain on error 4902), reads the token balance (eth_call balanceOf), has
// the wallet sign the EIP-3009 TransferWithAuthorization
// (eth_signTypedData_v4), retries this URL with the X-PAYMENT header and
// shows the paid content and the settlement from X-PAYMENT-RESPONSE.
// A route that moves the token through Permit2 (scheme upto, or exact with
// extra.assetTransferMethod "permit2") is paid with x402 version 2 from
// #x402-payment-required-v2: the page reads the Permit2 allowance, has the
// wallet approve Permit2 once (eth_sendTransaction) or, when the route
// declares eip2612GasSponsoring, sign an EIP-2612 permit instead, then
// sign Permit2's PermitWitnessTransferFrom as @x402/evm 2.27 does, sends
// PAYMENT-SIGNATURE and shows the charge from PAYMENT-RESPONSE. A version 2
// payment carries the payment-identifier extension when the 402 declares
// it (one id for the page's life), and a payment whose answer was lost is
// sent again unchanged on "Try again", so that the seller recognises it
// and charges it at most once.
// Nothing is loaded from elsewhere; it runs under the page's strict CSP.
(function () {
  'use strict';

  var $ = function (id) { return document.getElementById(id); };

  function readJSON(id) {
    var el = $(id);
    if (!el) return {};
    try { return JSON.parse(el.textContent) || {}; } catch (e) { return {}; }
  }

  // The nonce the page's policy allows for style sheets only: paid HTML's
  // styles get it in the sandboxed frame (see styleForFrame).
  var frameNonce = (document.currentScript && document.currentScript.getAttribute('data-frame-nonce')) || '';

  var paymentRequired = readJSON('x402-payment-required');
  // The 402's x402 version 2 PaymentRequired: Permit2 routes are paid with it.
  var paymentRequiredV2 = readJSON('x402-payment-required-v2');
  var baseCfg = readJSON('x402-config');
  // The ways to pay, one per network, in the seller's order; the
  // config's options follow the same order.
  var accepts = (paymentRequired.accepts && paymentRequired.accepts.length) ? paymentRequired.accepts
    : (paymentRequired.paymentRequirements ? [paymentRequired.paymentRequirements] : []);
  var cfgOptions = (baseCfg.options && baseCfg.options.length) ? baseCfg.options : [baseCfg];
  var cfg = baseCfg;
  var req = accepts[0] || null;
  // v2req is req's x402 version 2 requirements, when the 402 has them;
  // permit2 tells that the payment moves the token through Permit2, upto
  // that the price is a maximum and the charge what the answer used.
  var v2req = null;
  var permit2 = false;
  var upto = false;
  // optionIndex is the index of the option paid (choose).
  var optionIndex = 0;
  var symbol = 'tokens';
  var decimals = 6;

  // Elements; a seller's own template may leave some out.
  function el(id, tag) {
    var e = $(id);
    if (!e) {
      e = document.createElement(tag || 'div');
      e.id = id;
      e.hidden = true;
      document.body.appendChild(e);
    }
    return e;
  }
  var payButton = $('x402-pay');
  var statusBox = el('x402-status');
  var resultBox = el('x402-result', 'section');
  var receiptBox = $('x402-receipt');
  var chooserBox = $('x402-wallets');
  if (!chooserBox) {
    chooserBox = document.createElement('div');
    chooserBox.id = 'x402-wallets';
    chooserBox.className = 'wallets';
    chooserBox.hidden = true;
    if (payButton && payButton.parentNode) payButton.parentNode.insertBefore(chooserBox, payButton);
    else document.body.appendChild(chooserBox);
  }

  var PENDING_RETRIES = 20;
  var PENDING_DELAY_MS = 3000;
  // How often, and how long apart, the page asks the receipt look-up for
  // the receipt of a payment settled after its answer (followReceipt).
  var RECEIPT_TRIES = 20;
  var RECEIPT_DELAY_MS = 1500;
  var TRANSFER_TYPES = [
    { name: 'from', type: 'address' },
    { name: 'to', type: 'address' },
    { name: 'value', type: 'uint256' },
    { name: 'validAfter', type: 'uint256' },
    { name: 'validBefore', type: 'uint256' },
    { name: 'nonce', type: 'bytes32' }
  ];
  var DOMAIN_TYPES = [
    { name: 'name', type: 'string' },
    { name: 'version', type: 'string' },
    { name: 'chainId', type: 'uint256' },
    { name: 'verifyingContract', type: 'address' }
  ];

  // paymentId is the page's payment id (the payment-identifier extension
  // of x402 version 2), made when first needed as @x402/extensions'
  // generatePaymentId makes one: "pay_" and 32 hex digits. One id for the
  // page's life: the seller binds it to the first payment that may move
  // money, so another payment signed on this page after a lost answer is
  // refused (409) rather than charged a second time.
  var paymentId = '';
  // unanswered is the payment whose answer never came (the request failed
  // on the way, or its settlement stayed pending): {option, header, v2}. "Try
  // again" sends it again unchanged instead of having the wallet sign a
  // new one: the seller recognises it (the same authorization, and its
  // payment id) and charges it at most once.
  var unanswered = null;

  function setText(id, text) {
    var e = $(id);
    if (e) e.textContent = text;
  }

  // choose makes option i the one paid: its requirements, its chain and
  // its token, and shows its price.
  function choose(i) {
    optionIndex = i;
    req = accepts[i] || null;
    cfg = Object.assign({}, baseCfg, cfgOptions[i] || {});
    symbol = cfg.symbol || 'tokens';
    decimals = typeof cfg.decimals === 'number' ? cfg.decimals : 6;
    if (!req) return;
    v2req = v2For(req, cfg);
    upto = req.scheme === 'upto' || !!(v2req && v2req.scheme === 'upto');
    permit2 = upto || !!(v2req && v2req.extra && v2req.extra.assetTransferMethod === 'permit2');
    var approveStep = document.querySelector('#x402-steps li[data-step="approve"]');
    if (approveStep) approveStep.hidden = !permit2;
    var atMost = $('x402-atmost');
    if (atMost) atMost.hidden = !upto;
    var amount = BigInt(req.maxAmountRequired);
    var price = formatUnits(amount, decimals);
    setText('x402-price', price);
    setText('x402-symbol', symbol);
    setText('x402-units', amount + ' smallest units · ' + decimals + ' decimals');
    setText('x402-network-name', req.network);
    setText('x402-chain', cfg.chainId ? ' · chain ID ' + cfg.chainId : '');
    setText('x402-asset', req.asset);
    setText('x402-token', req.extra && req.extra.name ? req.extra.name + ' (' + symbol + ')' : symbol);
    setText('x402-foot-price', price + ' ' + symbol);
    if (payButton && !busy) payButton.textContent = 'Pay ' + (upto ? 'at most ' : '') + price + ' ' + symbol + ' with your wallet';
  }

  // v2For finds the version 2 requirements of a version 1 option: the
  // same scheme, the chain's CAIP-2 network and the same token.
  function v2For(r, c) {
    var list = paymentRequiredV2 && paymentRequiredV2.accepts;
    if (!list || !list.length || !c.chainId) return null;
    for (var i = 0; i < list.length; i++) {
      var a = list[i];
      if (a && a.network === 'eip155:' + c.chainId && (a.scheme || 'exact') === (r.scheme || 'exact') &&
          typeof a.asset === 'string' && a.asset.toLowerCase() === String(r.asset).toLowerCase()) return a;
    }
    return null;
  }

  // ---- messages ----

  // PaymentError is a failure told to the person as it is.
  function PaymentError(step, title, detail, kind) {
    this.step = step;
    this.title = title;
    this.detail = detail || '';
    this.kind = kind || 'error';
  }

  function show(kind, title, detail) {
    statusBox.hidden = false;
    statusBox.className = 'status' + (kind === 'info' ? '' : ' ' + kind);
    statusBox.setAttribute('data-kind', kind);
    statusBox.textContent = '';
    var t = document.createElement('strong');
    t.textContent = title;
    statusBox.appendChild(t);
    if (detail) {
      var d = document.createElement('span');
      d.textContent = detail;
      statusBox.appendChild(d);
    }
  }

  function setStep(name, state) {
    var steps = document.querySelectorAll('#x402-steps li');
    var reached = false;
    for (var i = 0; i < steps.length; i++) {
      var li = steps[i];
      var here = li.getAttribute('data-step') === name;
      li.classList.remove('active', 'done', 'failed');
      if (here) {
        li.classList.add(state);
        reached = true;
      } else if (!reached) {
        li.classList.add('done');
      }
    }
  }

  // ---- amounts ----

  function formatUnits(v, dec) {
    var s = v.toString();
    if (dec === 0) return s;
    while (s.length <= dec) s = '0' + s;
    var whole = s.slice(0, s.length - dec);
    var frac = s.slice(s.length - dec).replace(/0+$/, '');
    return frac ? whole + '.' + frac : whole;
  }

  function hex(bytes) {
    var out = '0x';
    for (var i = 0; i < bytes.length; i++) out += (bytes[i] < 16 ? '0' : '') + bytes[i].toString(16);
    return out;
  }

  // ---- wallets: EIP-6963, else window.ethereum ----

  // wallets are the announced ones, in the order they came, one per uuid:
  // {uuid, name, icon (a data:image/ URI or ''), rdns, provider}.
  var wallets = [];
  // chosen is the person's pick among several, kept for the page's life.
  var chosen = null;

  window.addEventListener('eip6963:announceProvider', function (ev) {
    var d = ev && ev.detail;
    var info = d && d.info;
    if (!info || typeof info.uuid !== 'string' || !info.uuid || !d.provider || typeof d.provider.request !== 'function') return;
    for (var i = 0; i < wallets.length; i++) {
      if (wallets[i].uuid === info.uuid) return;
    }
    var name = typeof info.name === 'string' ? info.name.trim().slice(0, 64) : '';
    wallets.push({
      uuid: info.uuid,
      name: name || 'Unnamed wallet',
      // EIP-6963 icons are data: URIs; the page's policy loads images
      // from nowhere else.
      icon: typeof info.icon === 'string' && /^data:image\//i.test(info.icon) ? info.icon : '',
      rdns: typeof info.rdns === 'string' ? info.rdns : '',
      provider: d.provider
    });
    if (!chooserBox.hidden) renderChooser();
  });

  function requestWallets() {
    try { window.dispatchEvent(new Event('eip6963:requestProvider')); } catch (e) { /* no events */ }
  }
  requestWallets();

  // pickWallet returns the wallet to pay with: the chosen one, the only
  // announced one, or window.ethereum when none announced; null when the
  // person has to choose among several first.
  function pickWallet() {
    requestWallets(); // a wallet that loaded since answers now
    if (chosen) return chosen;
    if (wallets.length === 1) return wallets[0];
    if (wallets.length > 1) return null;
    var eth = window.ethereum;
    if (eth && typeof eth.request === 'function') return { name: '', provider: eth };
    throw new PaymentError('connect', 'No wallet found',
      'This page needs a browser wallet for Ethereum-compatible chains (an EIP-1193 wallet such as MetaMask, Rabby or Crypto.com DeFi Wallet). Install one, or open this page in your wallet app, then reload.');
  }

  // renderChooser shows a button per announced wallet, with its icon and
  // name; a press remembers the wallet and pays with it.
  function renderChooser() {
    chooserBox.textContent = '';
    chooserBox.hidden = false;
    wallets.forEach(function (w) {
      var b = document.createElement('button');
      b.type = 'button';
      b.className = 'wallet';
      b.disabled = busy;
      b.setAttribute('aria-pressed', chosen === w ? 'true' : 'false');
      if (w.rdns) b.title = w.rdns;
      var icon = document.createElement(w.icon ? 'img' : 'span');
      if (w.icon) {
        icon.src = w.icon;
        icon.alt = '';
      } else {
        icon.className = 'noicon';
      }
      b.appendChild(icon);
      var label = document.createElement('span');
      label.textContent = w.name;
      b.appendChild(label);
      b.addEventListener('click', function () {
        if (busy) return;
        chosen = w;
        pay();
      });
      chooserBox.appendChild(b);
    });
  }

  function chooseWallet() {
    renderChooser();
    setStep('connect', 'active');
    show('info', 'Choose a wallet', 'Several wallets are installed in this browser. Choose the one to pay with.');
  }

  // ---- wallet ----

  function errorCode(err) {
    if (!err) return undefined;
    if (typeof err.code === 'number') {
      // Some wallets wrap "unknown chain" in an internal error.
      var inner = err.data && err.data.originalError && err.data.originalError.code;
      if (err.code === -32603 && inner === 4902) return 4902;
      return err.code;
    }
    return undefined;
  }

  function errorText(err) {
    if (!err) return 'unknown error';
    return err.message || String(err);
  }

  function call(eth, method, params) {
    return eth.request(params === undefined ? { method: method } : { method: method, params: params });
  }

  function chainHex(id) { return '0x' + Number(id).toString(16); }

  async function ensureChain(eth) {
    if (!cfg.chainId) {
      throw new PaymentError('chain', 'Unknown chain',
        'This page does not know the chain ID of network "' + req.network + '", so it cannot ask your wallet for the right chain. Tell the seller.');
    }
    var want = Number(cfg.chainId);
    var have = parseInt(await call(eth, 'eth_chainId'), 16);
    if (have === want) return;
    var name = cfg.chainName || req.network;
    show('info', 'Switching network…', 'Your wallet is on chain ' + have + '; this payment is on ' + name + ' (chain ID ' + want + '). Approve the switch in your wallet.');
    try {
      await call(eth, 'wallet_switchEthereumChain', [{ chainId: chainHex(want) }]);
    } catch (err) {
      if (errorCode(err) === 4902) {
        if (!cfg.rpcUrls || !cfg.rpcUrls.length) {
          throw new PaymentError('chain', 'Wrong network',
            'Your wallet does not know ' + name + ' (chain ID ' + want + '). Add that network to your wallet, switch to it and try again.');
        }
        show('info', 'Adding network…', 'Your wallet does not know ' + name + ' yet. Approve adding it (chain ID ' + want + ').');
        try {
          var params = { chainId: chainHex(want), chainName: name, rpcUrls: cfg.rpcUrls };
          if (cfg.nativeCurrency) params.nativeCurrency = cfg.nativeCurrency;
          if (cfg.explorer) params.blockExplorerUrls = [cfg.explorer];
          await call(eth, 'wallet_addEthereumChain', [params]);
          await call(eth, 'wallet_switchEthereumChain', [{ chainId: chainHex(want) }]);
        } catch (err2) {
          throw wrongChain(have, want, name, err2);
        }
      } else {
        throw wrongChain(have, want, name, err);
      }
    }
    have = parseInt(await call(eth, 'eth_chainId'), 16);
    if (have !== want) throw wrongChain(have, want, name);
  }

  function wrongChain(have, want, name, err) {
    var why = err && errorCode(err) === 4001 ? ' You declined the switch.' : (err ? ' (' + errorText(err) + ')' : '');
    return new PaymentError('chain', 'Wrong network',
      'Your wallet is on chain ' + have + ', but this payment is on ' + name + ' (chain ID ' + want + ').' + why +
      ' Switch your wallet to ' + name + ' and try again.');
  }

  async function checkBalance(eth, account, amount) {
    var data = '0x70a08231' + account.toLowerCase().replace(/^0x/, '').padStart(64, '0');
    var out;
    try {
      out = await call(eth, 'eth_call', [{ to: req.asset, data: data }, 'latest']);
    } catch (err) {
      return; // the facilitator checks the balance too; go on
    }
    if (typeof out !== 'string' || !/^0x[0-9a-fA-F]*$/.test(out)) return;
    var balance = out === '0x' ? 0n : BigInt(out);
    if (balance < amount) {
      throw new PaymentError('sign', 'Not enough ' + symbol,
        'This costs ' + formatUnits(amount, decimals) + ' ' + symbol + ' (' + amount + ' smallest units); your account ' + account +
        ' has ' + formatUnits(balance, decimals) + ' ' + symbol + ' (' + balance + '). Top it up on ' + (cfg.chainName || req.network) + ' and try again.');
    }
  }

  async function sign(eth, account) {
    var extra = req.extra || {};
    if (!extra.name || !extra.version) {
      throw new PaymentError('sign', 'Cannot sign',
        "The seller's payment requirements do not name the token's EIP-712 domain (extra.name and extra.version). Tell the seller.");
    }
    var nonce = new Uint8Array(32);
    crypto.getRandomValues(nonce);
    var now = Math.floor(Date.now() / 1000);
    var validFor = Math.max(Number(req.maxTimeoutSeconds) || 300, 60);
    var auth = {
      from: account,
      to: req.payTo,
      value: String(req.maxAmountRequired),
      // Ten minutes back tolerates a wallet or chain clock behind ours.
      validAfter: now - 600,
      validBefore: now + validFor,
      nonce: hex(nonce)
    };
    var typed = {
      types: { EIP712Domain: DOMAIN_TYPES, TransferWithAuthorization: TRANSFER_TYPES },
      primaryType: 'TransferWithAuthorization',
      domain: { name: extra.name, version: extra.version, chainId: Number(cfg.chainId), verifyingContract: req.asset },
      message: {
        from: auth.from, to: auth.to, value: auth.value,
        validAfter: String(auth.validAfter), validBefore: String(auth.validBefore), nonce: auth.nonce
      }
    };
    var signature;
    try {
      signature = await call(eth, 'eth_signTypedData_v4', [account, JSON.stringify(typed)]);
    } catch (err) {
      if (errorCode(err) === 4001) {
        throw new PaymentError('sign', 'Signature rejected',
          'You rejected the signature request in your wallet. Nothing was paid. Press the button to try again.', 'warn');
      }
      throw new PaymentError('sign', 'Your wallet could not sign', errorText(err));
    }
    // The flat payload of the Cronos facilitator interface.
    var payment = {
      x402Version: 1,
      scheme: req.scheme || 'exact',
      network: req.network,
      payload: {
        from: auth.from, to: auth.to, value: auth.value,
        validAfter: auth.validAfter, validBefore: auth.validBefore,
        nonce: auth.nonce, signature: signature, asset: req.asset
      }
    };
    return btoa(JSON.stringify(payment));
  }

  // ---- Permit2 (scheme upto, or exact with assetTransferMethod permit2) ----

  // Canonical addresses, the same on every chain that has them.
  var PERMIT2 = '0x000000000022D473030F116dDEE9F6B43aC78BA3';
  var EXACT_PROXY = '0x402085c248EeA27D92E8b30b2C58ed07f9E20001';
  var UPTO_PROXY = '0x4020A4f3b7b90ccA423B9fabCc0CE57C6C240002';
  var MAX_UINT256_WORD = 'ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff';
  var APPROVAL_WAIT_MS = 120000;
  var PERMIT_TYPES = [
    { name: 'owner', type: 'address' },
    { name: 'spender', type: 'address' },
    { name: 'value', type: 'uint256' },
    { name: 'nonce', type: 'uint256' },
    { name: 'deadline', type: 'uint256' }
  ];

  function word(address) { return String(address).toLowerCase().replace(/^0x/, '').padStart(64, '0'); }

  // readUint reads a uint256 view of the token through the wallet, or
  // null when the wallet or the token cannot answer.
  async function readUint(eth, data) {
    var out;
    try {
      out = await call(eth, 'eth_call', [{ to: req.asset, data: data }, 'latest']);
    } catch (err) {
      return null;
    }
    if (typeof out !== 'string' || !/^0x[0-9a-fA-F]*$/.test(out) || out.length > 66) return null;
    return out === '0x' ? null : BigInt(out);
  }

  // paymentIdExtension is the payment-identifier extension of a version 2
  // payment when the 402 declares it (an entry whose info.required is a
  // boolean): the seller's declaration with info.id added, as
  // @x402/extensions' appendPaymentIdentifierToExtensions writes it; null
  // when the 402 does not declare it.
  function paymentIdExtension() {
    var ext = paymentRequiredV2 && paymentRequiredV2.extensions;
    var decl = ext && ext['payment-identifier'];
    if (!decl || typeof decl !== 'object' || !decl.info || typeof decl.info.required !== 'boolean') return null;
    if (!paymentId) {
      var rnd = new Uint8Array(16);
      crypto.getRandomValues(rnd);
      paymentId = 'pay_' + hex(rnd).slice(2);
    }
    var out = Object.assign({}, decl);
    out.info = Object.assign({}, decl.info, { id: paymentId });
    return out;
  }

  function sponsorsEip2612() {
    var ext = paymentRequiredV2 && paymentRequiredV2.extensions;
    var extra = (v2req && v2req.extra) || {};
    return !!(ext && ext.eip2612GasSponsoring && extra.name && extra.version);
  }

  // allowPermit2 makes sure Permit2 may move amount of the buyer's token.
  // It returns null when it may (now, or after the approval transaction
  // it had the wallet send), or the token's EIP-2612 nonce when the route
  // sponsors the permit and the buyer signs one instead.
  async function allowPermit2(eth, account, amount) {
    var allowance = await readUint(eth, '0xdd62ed3e' + word(account) + word(PERMIT2));
    // Unknown: go on; the seller refuses a payment without allowance and
    // says so (PERMIT2_ALLOWANCE_REQUIRED).
    if (allowance === null || allowance >= amount) return null;
    if (sponsorsEip2612()) {
      var nonce = await readUint(eth, '0x7ecebe00' + word(account));
      if (nonce !== null) return nonce;
    }
    show('info', 'Allow Permit2 to move your ' + symbol + ' (one transaction)',
      'This payment goes through Permit2 (' + PERMIT2 + '), the contract x402 uses to move tokens by signed permits. ' +
      'Your wallet asks you to send one transaction to the token ' + req.asset + ': approve(Permit2, unlimited). ' +
      'It moves no tokens and costs you a little gas in the chain\'s coin; afterwards Permit2 moves your ' + symbol +
      ' only with a permit you sign, such as the one you sign next. It is needed once for this token.');
    var tx;
    try {
      tx = await call(eth, 'eth_sendTransaction', [{ from: account, to: req.asset, data: '0x095ea7b3' + word(PERMIT2) + MAX_UINT256_WORD }]);
    } catch (err) {
      if (errorCode(err) === 4001) {
        throw new PaymentError('approve', 'Approval declined',
          'You declined the Permit2 approval. Nothing was sent and nothing was paid. Press the button to try again.', 'warn');
      }
      throw new PaymentError('approve', 'Your wallet could not send the approval', errorText(err) + '. Nothing was paid.');
    }
    show('info', 'Waiting for the approval…', 'Transaction ' + tx + ' approves Permit2 on ' + req.asset + '; waiting for its block.');
    var end = Date.now() + APPROVAL_WAIT_MS;
    while (Date.now() < end) {
      var rc = null;
      try { rc = await call(eth, 'eth_getTransactionReceipt', [tx]); } catch (err) { /* ask again */ }
      if (rc && rc.status !== undefined && rc.status !== null) {
        if (Number(rc.status) === 1) return null;
        throw new PaymentError('approve', 'The approval failed', 'Transaction ' + tx + ' reverted: Permit2 is not approved and nothing was paid.');
      }
      await sleep(1000);
    }
    throw new PaymentError('approve', 'Approval not confirmed yet',
      'Transaction ' + tx + ' is not in a block yet. Nothing was paid. Press the button again once your wallet shows it confirmed.', 'warn');
  }

  // signTyped has the wallet sign EIP-712 typed data.
  async function signTyped(eth, account, typed, what) {
    try {
      return await call(eth, 'eth_signTypedData_v4', [account, JSON.stringify(typed)]);
    } catch (err) {
      if (errorCode(err) === 4001) {
        throw new PaymentError('sign', 'Signature rejected',
          'You rejected the ' + what + ' in your wallet. Nothing was paid. Press the button to try again.', 'warn');
      }
      throw new PaymentError('sign', 'Your wallet could not sign', errorText(err));
    }
  }

  // signEip2612 signs the token's EIP-2612 permit of amount to Permit2
  // until deadline and returns the payment's eip2612GasSponsoring
  // extension, as @x402/evm 2.27's client builds it: the facilitator
  // submits the permit with the settle, so the buyer sends no transaction.
  async function signEip2612(eth, account, amount, nonce, deadline) {
    var extra = v2req.extra;
    show('info', 'Sign a permit for Permit2 (no transaction, no gas)',
      'The seller sponsors the approval: your wallet asks you to sign an EIP-2612 permit letting Permit2 (' + PERMIT2 + ') move up to ' +
      formatUnits(amount, decimals) + ' ' + symbol + ' of yours; the seller submits it with the payment. Then you sign the payment itself.');
    var message = { owner: account, spender: PERMIT2, value: String(amount), nonce: String(nonce), deadline: String(deadline) };
    var signature = await signTyped(eth, account, {
      types: { EIP712Domain: DOMAIN_TYPES, Permit: PERMIT_TYPES },
      primaryType: 'Permit',
      domain: { name: extra.name, version: extra.version, chainId: Number(cfg.chainId), verifyingContract: v2req.asset },
      message: message
    }, 'permit for Permit2');
    return { eip2612GasSponsoring: { info: {
      from: account, asset: v2req.asset, spender: PERMIT2, amount: String(amount),
      nonce: String(nonce), deadline: String(deadline), signature: signature, version: '1'
    } } };
  }

  // signPermit2 has the wallet sign Permit2's PermitWitnessTransferFrom of
  // amount to the x402 proxy of the route's scheme, as @x402/evm 2.27's
  // clients do (validAfter 0, a random 256-bit nonce), and returns the
  // PAYMENT-SIGNATURE header: Base64 JSON of the version 2 PaymentPayload.
  async function signPermit2(eth, account, amount, deadline, extensions) {
    var facilitator = upto ? v2req.extra && v2req.extra.facilitatorAddress : '';
    if (upto && !/^0x[0-9a-fA-F]{40}$/.test(facilitator || '')) {
      throw new PaymentError('sign', 'Cannot sign',
        "The seller's requirements do not name the facilitator that settles (extra.facilitatorAddress). Nothing was paid. Tell the seller.");
    }
    var rnd = new Uint8Array(32);
    crypto.getRandomValues(rnd);
    var witness = { to: v2req.payTo, validAfter: '0' };
    var witnessTypes = [{ name: 'to', type: 'address' }];
    if (upto) {
      witness = { to: v2req.payTo, facilitator: facilitator, validAfter: '0' };
      witnessTypes.push({ name: 'facilitator', type: 'address' });
    }
    witnessTypes.push({ name: 'validAfter', type: 'uint256' });
    var auth = {
      from: account,
      permitted: { token: v2req.asset, amount: String(amount) },
      spender: upto ? UPTO_PROXY : EXACT_PROXY,
      nonce: BigInt(hex(rnd)).toString(),
      deadline: String(deadline),
      witness: witness
    };
    show('info', 'Sign the payment',
      upto ? 'Your wallet asks you to sign a Permit2 permit of at most ' + formatUnits(amount, decimals) + ' ' + symbol + ' to ' + v2req.payTo +
        '. You are charged what the answer uses, at most that; nothing for a failed answer.'
        : 'Your wallet asks you to sign a Permit2 transfer of ' + formatUnits(amount, decimals) + ' ' + symbol + ' to ' + v2req.payTo + '.');
    var signature = await signTyped(eth, account, {
      types: {
        EIP712Domain: [{ name: 'name', type: 'string' }, { name: 'chainId', type: 'uint256' }, { name: 'verifyingContract', type: 'address' }],
        PermitWitnessTransferFrom: [
          { name: 'permitted', type: 'TokenPermissions' },
          { name: 'spender', type: 'address' },
          { name: 'nonce', type: 'uint256' },
          { name: 'deadline', type: 'uint256' },
          { name: 'witness', type: 'Witness' }
        ],
        TokenPermissions: [{ name: 'token', type: 'address' }, { name: 'amount', type: 'uint256' }],
        Witness: witnessTypes
      },
      primaryType: 'PermitWitnessTransferFrom',
      domain: { name: 'Permit2', chainId: Number(cfg.chainId), verifyingContract: PERMIT2 },
      message: auth
    }, 'payment');
    var payment = {
      x402Version: 2,
      resource: paymentRequiredV2.resource,
      accepted: v2req,
      payload: { signature: signature, permit2Authorization: auth }
    };
    if (extensions) payment.extensions = extensions;
    return base64JSON(payment);
  }

  // base64JSON is Base64 of JSON's UTF-8 (a description may hold any
  // character; btoa takes only Latin-1).
  function base64JSON(v) {
    var bytes = new TextEncoder().encode(JSON.stringify(v));
    var bin = '';
    for (var i = 0; i < bytes.length; i++) bin += String.fromCharCode(bytes[i]);
    return btoa(bin);
  }

  // payPermit2 signs a Permit2 payment of amount (after the approval or
  // the sponsored permit it needs) and returns its header.
  async function payPermit2(eth, account, amount) {
    if (!v2req) {
      throw new PaymentError('sign', 'Cannot pay here',
        "This route is paid through Permit2 with x402 version 2, and this page has no version 2 requirements for it. Nothing was paid. Pay with an x402 version 2 client.");
    }
    setStep('approve', 'active');
    var deadline = Math.floor(Date.now() / 1000) + (Number(v2req.maxTimeoutSeconds) > 0 ? Number(v2req.maxTimeoutSeconds) : 300);
    var nonce = await allowPermit2(eth, account, amount);
    setStep('sign', 'active');
    var extensions = nonce === null ? undefined : await signEip2612(eth, account, amount, nonce, deadline);
    var pid = paymentIdExtension();
    if (pid) {
      extensions = extensions || {};
      extensions['payment-identifier'] = pid;
    }
    return signPermit2(eth, account, amount, deadline, extensions);
  }

  // ---- the paid request ----

  function decodeSettlement(res) {
    var h = res.headers.get('PAYMENT-RESPONSE') || res.headers.get('X-PAYMENT-RESPONSE');
    if (!h) return null;
    try {
      var b64 = h.trim().replace(/-/g, '+').replace(/_/g, '/');
      while (b64.length % 4) b64 += '=';
      return JSON.parse(atob(b64));
    } catch (e) {
      return null;
    }
  }

  function sleep(ms) { return new Promise(function (r) { setTimeout(r, ms); }); }

  // lostAnswer marks a failure after which the payment's outcome is not
  // known: "Try again" sends the same payment again.
  function lostAnswer(e) {
    e.lost = true;
    return e;
  }

  // conflict reads a 409 to the paid request: the seller is serving this
  // payment in another request (Retry-After: asked again with the same
  // payment, as a pending one), it was served before (its answer lost:
  // paid, not served again), or its payment id belongs to another payment.
  async function conflict(res, attempt) {
    var body = {};
    try { body = await res.json(); } catch (e) { /* not JSON */ }
    var reason = body.error || 'HTTP 409';
    var retry = typeof body.retry === 'string' ? ' ' + body.retry.charAt(0).toUpperCase() + body.retry.slice(1) + '.' : '';
    if (body.error === 'payment already delivered') {
      paymentId = ''; // that purchase is over: another one takes a new id
      var tx = body.transaction || '';
      if (tx) showTx(tx, null, body.payer, true);
      throw new PaymentError('settle', 'Already paid',
        'This payment was settled' + (tx ? ' in transaction ' + tx : '') + ' and its content was served to an earlier request whose answer was lost; ' +
        'the seller does not serve it or charge it again. Press the button to buy it again with a new payment.', 'warn');
    }
    if (res.headers.get('Retry-After') && attempt < PENDING_RETRIES) {
      setStep('settle', 'active');
      show('warn', 'Your payment is being served', 'The seller is still serving this payment in another request. Asking again with the same payment (' + (attempt + 1) + '/' + PENDING_RETRIES + ')…');
      var after = Number(res.headers.get('Retry-After'));
      await sleep(after >= 1 ? Math.min(after, 10) * 1000 : PENDING_DELAY_MS);
      return;
    }
    if (res.headers.get('Retry-After')) {
      throw lostAnswer(new PaymentError('settle', 'Your payment is still being served',
        'The seller is still serving this payment in another request. Press the button later to ask again with the same payment (no new signature); it is charged at most once.', 'warn'));
    }
    throw new PaymentError('settle', 'Payment refused', 'The seller refused the payment: ' + reason + '.' + retry);
  }

  // submit retries this URL with the payment: X-PAYMENT (version 1) or
  // PAYMENT-SIGNATURE (version 2, v2 true).
  async function submit(header, v2) {
    var accept = req.mimeType || '*/*';
    var headers = { 'Accept': accept };
    headers[v2 ? 'PAYMENT-SIGNATURE' : 'X-PAYMENT'] = header;
    for (var attempt = 0; ; attempt++) {
      var res;
      try {
        res = await fetch(location.href, {
          method: 'GET',
          headers: headers,
          cache: 'no-store',
          credentials: 'same-origin'
        });
      } catch (err) {
        throw lostAnswer(new PaymentError('settle', 'The seller could not be reached',
          errorText(err) + '. Your payment may still go through: press the button to send the same payment again (no new signature); it is charged at most once.'));
      }
      var settlement = decodeSettlement(res);
      if (res.status === 409) {
        await conflict(res, attempt);
        continue;
      }
      if (res.status !== 402) return { res: res, settlement: settlement };

      var body = {};
      try { body = await res.json(); } catch (e) { /* not JSON */ }
      var reason = body.invalidReason || body.error || ('HTTP ' + res.status);
      var tx = (settlement && (settlement.txHash || settlement.transaction)) || body.txHash || body.transaction || '';
      if (/pending/i.test(reason) && attempt < PENDING_RETRIES) {
        setStep('settle', 'active');
        show('warn', 'Settlement pending',
          (tx ? 'Transaction ' + tx + ' is not in a block yet. ' : 'The transaction is not in a block yet. ') +
          'Asking again with the same authorization (' + (attempt + 1) + '/' + PENDING_RETRIES + ')…');
        if (tx) showTx(tx, null, null, false);
        // The seller's Retry-After (seconds), within 1-10 s.
        var after = Number(res.headers.get('Retry-After'));
        await sleep(after >= 1 ? Math.min(after, 10) * 1000 : PENDING_DELAY_MS);
        continue;
      }
      if (/pending/i.test(reason)) {
        throw lostAnswer(new PaymentError('settle', 'Settlement still pending',
          (tx ? 'Transaction ' + tx + ' is not confirmed yet. ' : '') +
          'Press the button later to ask again with the same payment (no new signature); it is settled at most once.', 'warn'));
      }
      throw new PaymentError('settle', 'Payment refused', 'The seller refused the payment: ' + reason + '.');
    }
  }

  // showAccess tells how long the payment gives access, on a route with
  // access: the seller's X-Payment-Access-Until, in local time. The access
  // cookie (HttpOnly, so out of this script's reach) brings the content
  // back on a reload until then.
  function showAccess(res) {
    var until = res.headers.get('X-Payment-Access-Until');
    var d = until ? new Date(until) : null;
    if (!d || isNaN(d.getTime())) return;
    var box = el('x402-access', 'p');
    box.textContent = 'Access until ' + d.toLocaleString() + '. Reload this page to see it again without paying.';
    box.hidden = false;
  }

  function explorerLink(tx) {
    var base = typeof cfg.explorer === 'string' ? cfg.explorer.replace(/\/+$/, '') : '';
    if (!/^https?:\/\//i.test(base)) return '';
    return base + '/tx/' + tx;
  }

  // showTx shows the transaction, settled or still waiting for its block.
  function showTx(tx, block, from, settled) {
    if (!receiptBox) return;
    receiptBox.hidden = false;
    var title = $('x402-receipt-title');
    if (title) title.textContent = settled ? 'Paid' : 'Payment sent, waiting for its block';
    el('x402-block').textContent = block === null || block === undefined ? (settled ? '-' : 'not yet') : String(block);
    el('x402-tx', 'code').textContent = tx;
    var link = $('x402-tx-link');
    var href = explorerLink(tx);
    if (link && href) {
      link.href = href;
      link.hidden = false;
    }
    if (from) el('x402-from', 'code').textContent = from;
  }

  // showSignedReceipt shows the seller's signed receipt of the payment (the
  // x402 offer-receipt extension in the settlement), when it carries one:
  // who signed it (a JWS names its key; an EIP-712 receipt is signed by a
  // key of this site's did:web document), what it says was charged, and a
  // link to save it. The page does not check the signature: "caddy x402
  // pay" and the published verifiers do (docs/receipts.md).
  function showSignedReceipt(s) {
    var ext = s && s.extensions && s.extensions['offer-receipt'];
    var info = ext && ext.info;
    showReceipt(info, receiptClaims(info));
  }

  // showReceipt shows receipt info with what receiptClaims read of it
  // (showSignedReceipt, followReceipt); nothing when claims is null.
  function showReceipt(info, claims) {
    if (!claims || !receiptBox) return;
    el('x402-signer', 'code').textContent = claims.signer;
    var text = '', charge = claims.charge;
    if (charge && /^[0-9]+$/.test(String(charge.amount))) {
      var v = BigInt(charge.amount);
      text = 'Charged ' + formatUnits(v, decimals) + ' ' + symbol + ' (' + v + ' smallest units)';
      if (/^[0-9]+$/.test(String(charge.maxAmount || ''))) text += ' of at most ' + formatUnits(BigInt(charge.maxAmount), decimals) + ' ' + symbol;
      if (charge.usage) text += ', for ' + charge.usage;
      text += '.';
    }
    el('x402-signed-charge', 'span').textContent = text;
    var save = $('x402-receipt-save');
    if (save && typeof Blob === 'function' && window.URL && URL.createObjectURL) {
      save.href = URL.createObjectURL(new Blob([JSON.stringify(info, null, 2) + '\n'], { type: 'application/json' }));
      save.hidden = false;
    }
    el('x402-signed').hidden = false;
    var label = $('x402-signed-label');
    if (label) label.hidden = false;
    receiptBox.hidden = false;
  }

  // receiptClaims reads a signed receipt info ({receipt, charge?}): its
  // signer, the charge it states and its transaction ('' for none); null
  // when there is no receipt or it cannot be read.
  function receiptClaims(info) {
    var r = info && info.receipt;
    if (!r) return null;
    try {
      if (r.format === 'jws') {
        var parts = String(r.signature).split('.');
        var body = JSON.parse(b64urlText(parts[1]));
        return { signer: JSON.parse(b64urlText(parts[0])).kid || '', charge: body.charge, transaction: body.transaction || '' };
      }
      return {
        signer: 'did:web:' + location.host.replace(/:/g, '%3A') + ' (EIP-712)',
        charge: info.charge && info.charge.payload,
        transaction: (r.payload && r.payload.transaction) || ''
      };
    } catch (e) {
      return null;
    }
  }

  // sentPayment reads back the payer and the payment id of a version 2
  // Permit2 payment header this page made: {from, id}, or null when it
  // carries no payment id.
  function sentPayment(header) {
    try {
      var p = JSON.parse(b64urlText(header));
      var auth = p.payload && p.payload.permit2Authorization;
      var pid = p.extensions && p.extensions['payment-identifier'];
      var id = pid && pid.info && pid.info.id;
      return auth && typeof auth.from === 'string' && typeof id === 'string' ? { from: auth.from, id: id } : null;
    } catch (e) {
      return null;
    }
  }

  // signsReceipts says whether the route signs receipts: its version 2 402
  // carries signed offers (the offer-receipt extension).
  function signsReceipts() {
    var ext = paymentRequiredV2 && paymentRequiredV2.extensions;
    return !!(ext && ext['offer-receipt']);
  }

  // followReceipt fetches the signed receipt of an upto payment settled
  // after its answer, which came in an HTTP trailer a page cannot read,
  // from the site's receipt look-up (/.well-known/x402/receipt, by the
  // payer and the payment id the payment carried: docs/receipts.md). It
  // asks while the settlement lands (404 until the receipt is kept, 503
  // while the records cannot be read), then shows the receipt, the charge
  // it states and its transaction. When none comes (the settlement failed,
  // or the look-up cannot be read), the page says that the charge is not
  // confirmed and where the receipt will be (noReceipt).
  async function followReceipt(sent, max) {
    var url = '/.well-known/x402/receipt?payer=' + encodeURIComponent(sent.from) + '&payment_id=' + encodeURIComponent(sent.id);
    for (var i = 0; i < RECEIPT_TRIES; i++) {
      await sleep(RECEIPT_DELAY_MS);
      var res;
      try {
        res = await fetch(url, { cache: 'no-store', credentials: 'same-origin' });
      } catch (e) {
        continue;
      }
      if (res.status === 404 || res.status === 503) continue;
      if (res.status !== 200) return noReceipt(max, url, 'The seller\'s receipt look-up answered ' + res.status + '.');
      var info;
      try { info = await res.json(); } catch (e) { info = null; }
      var claims = info && receiptClaims(info);
      // showCharge shows the charge when its amount is a number ('' when not).
      var charged = claims && claims.charge ? showCharge({ success: true, amount: String(claims.charge.amount), payer: sent.from }, max) : '';
      if (!charged) return noReceipt(max, url, 'The seller\'s receipt look-up gave no receipt this page can read.');
      showReceipt(info, claims);
      if (claims.transaction) showTx(claims.transaction, null, sent.from, true);
      show('ok', 'Paid', chargeText({}, claims.transaction, max, charged));
      return;
    }
    noReceipt(max, url, 'The seller has kept no receipt for this payment after ' + (RECEIPT_TRIES * RECEIPT_DELAY_MS / 1000) +
      ' seconds: its settlement failed, or is still on its way.');
  }

  // noReceipt says that an upto charge settled after its answer is not
  // confirmed (why), where the wallet shows it and where the seller's
  // receipt will be (url, the look-up) once kept.
  function noReceipt(max, url, why) {
    show('warn', 'Charge not confirmed', 'You signed for at most ' + formatUnits(max, decimals) + ' ' + symbol + '. ' + why +
      ' Your wallet\'s activity shows whether a transaction was made; once the seller keeps the receipt, it is at ' + url + '.');
  }

  // b64urlText decodes base64url to text.
  function b64urlText(v) {
    var b64 = String(v).replace(/-/g, '+').replace(/_/g, '/');
    while (b64.length % 4) b64 += '=';
    return decodeURIComponent(Array.prototype.map.call(atob(b64), function (c) {
      return '%' + ('0' + c.charCodeAt(0).toString(16)).slice(-2);
    }).join(''));
  }

  // showCharge shows an upto payment's charge from the settlement (its
  // amount in smallest units, at most the maximum) in the receipt and
  // returns it, or '' when the answer carried no settlement.
  function showCharge(s, max) {
    if (!s || !s.success || typeof s.amount !== 'string' || !/^[0-9]+$/.test(s.amount)) return '';
    var v = BigInt(s.amount);
    var dd = $('x402-charged');
    if (dd) {
      dd.textContent = formatUnits(v, decimals) + ' ' + symbol + ' (' + v + ' smallest units) of at most ' + formatUnits(max, decimals) + ' ' + symbol;
      dd.hidden = false;
      var dt = $('x402-charged-label');
      if (dt) dt.hidden = false;
      if (receiptBox) receiptBox.hidden = false;
      if (v === 0n) {
        var title = $('x402-receipt-title');
        if (title) title.textContent = 'Nothing charged';
        el('x402-tx', 'code').textContent = 'none (nothing to move)';
        if (s.payer) el('x402-from', 'code').textContent = s.payer;
      }
    }
    return v.toString();
  }

  // chargeText tells what an upto payment charged (followsReceipt: the
  // page will ask the look-up for a receipt that came in a trailer).
  function chargeText(s, tx, max, charged, followsReceipt) {
    var most = formatUnits(max, decimals) + ' ' + symbol;
    if (charged === '0') return 'Charged nothing (at most ' + most + '): the answer used nothing, so no transaction was sent.';
    if (charged) {
      return 'Charged ' + formatUnits(BigInt(charged), decimals) + ' ' + symbol + ' of at most ' + most +
        (tx ? ', in transaction ' + tx + (s.blockNumber !== undefined ? ' (block ' + s.blockNumber + ')' : '') : '') + '.';
    }
    return 'You signed for at most ' + most + '. This seller settles the charge when the answer ends and sends the receipt in an HTTP trailer, ' +
      'which a web page cannot read: ' + (followsReceipt ? 'the page asks the seller for it once the charge is settled.' : 'your wallet\'s activity shows the transaction.');
  }

  // ---- paid HTML in the frame ----

  // styleForFrame returns paid HTML that keeps its own styles in the
  // sandboxed frame. The frame's srcdoc document inherits this page's
  // Content-Security-Policy, whose style-src allows only nonced style
  // sheets: so each <style> element gets the frame's nonce (which allows
  // style sheets and nothing else), and each style attribute, which no
  // nonce can allow, becomes a rule in a nonced <style> at the end. The
  // frame stays sandboxed without allow-scripts: the content's scripts do
  // not run whatever this does. It edits the text in place (a parser would
  // apply the styles in this page and report each one to its policy); it
  // reads the tags as the HTML tokenizer does, skipping comments and the
  // text of script, style, textarea, title and the like. Links to web pages
  // get target="_blank" on the way (see webLink).
  function styleForFrame(html, nonce) {
    var edits = []; // [from, to, replacement], in order
    var rules = [];
    var probe = document.createElement('i');
    var n = html.length;
    var i = 0;
    while (i < n) {
      var lt = html.indexOf('<', i);
      if (lt < 0 || lt + 1 >= n) break;
      var c = html.charAt(lt + 1);
      if (html.startsWith('<!--', lt)) {
        var ce = html.indexOf('-->', lt + 4);
        i = ce < 0 ? n : ce + 3;
        continue;
      }
      if (c === '!' || c === '?' || c === '/') { // doctype, bogus comment, end tag
        var te = html.indexOf('>', lt + 2);
        i = te < 0 ? n : te + 1;
        continue;
      }
      if (!/[A-Za-z]/.test(c)) {
        i = lt + 1;
        continue;
      }
      // A start tag: its name, then its attributes.
      var j = lt + 1;
      while (j < n && !/[\s\/>]/.test(html.charAt(j))) j++;
      var name = html.slice(lt + 1, j).toLowerCase();
      // Right after the name, so it is the element's first nonce.
      if (name === 'style') edits.push([j, j, ' nonce="' + nonce + '"']);
      var styled = false;
      var href = null;
      var targeted = false;
      while (j < n && html.charAt(j) !== '>') {
        if (/[\s\/]/.test(html.charAt(j))) {
          j++;
          continue;
        }
        var from = j;
        j++; // a name may start with '='
        while (j < n && !/[\s\/>=]/.test(html.charAt(j))) j++;
        var attr = html.slice(from, j).toLowerCase();
        var k = j;
        while (k < n && /\s/.test(html.charAt(k))) k++;
        var value = null;
        if (html.charAt(k) === '=') {
          k++;
          while (k < n && /\s/.test(html.charAt(k))) k++;
          var q = html.charAt(k);
          if (q === '"' || q === "'") {
            var qe = html.indexOf(q, k + 1);
            if (qe < 0) qe = n;
            value = html.slice(k + 1, qe);
            j = qe + 1;
          } else {
            var ue = k;
            while (ue < n && !/[\s>]/.test(html.charAt(ue))) ue++;
            value = html.slice(k, ue);
            j = ue;
          }
        }
        if (attr === 'href' && href === null) href = value || '';
        if (attr === 'target') targeted = true;
        if (attr !== 'style') continue;
        if (styled || value === null) { // only an element's first style counts
          edits.push([from, j, '']);
          continue;
        }
        styled = true;
        // This page's CSS parser (the CSSOM, which the policy does not
        // govern) reads the declarations as the attribute would have
        // them: what it cannot read goes, and nothing leaves the block.
        probe.style.cssText = decodeAttribute(value);
        var css = probe.style.cssText.replace(/</g, '\\3c ');
        var sel = '[data-x402-style="' + rules.length + '"]';
        // The second rule, for browsers with :is(), outranks the page's
        // own selectors as an inline style does; !important rules of the
        // page still win over it unless the attribute's are !important too.
        rules.push(sel + '{' + css + '}\n' + sel + ':is(' + INLINE_RANK + ', *){' + css + '}');
        edits.push([from, j, 'data-x402-style="' + (rules.length - 1) + '"']);
      }
      // A link to a web page opens in a new tab (the frame's sandbox
      // allows popups, which escape it): inside the frame it could not
      // load (the policy allows no frames), and the frame cannot leave.
      if ((name === 'a' || name === 'area') && !targeted && href !== null && webLink(href)) {
        edits.push([j, j, ' target="_blank" rel="noopener noreferrer"']);
      }
      i = j + 1;
      if (/^(script|style|textarea|title|xmp|iframe|noembed|noframes)$/.test(name)) {
        var close = new RegExp('</' + name + '[\\s/>]', 'ig');
        close.lastIndex = i;
        var m = close.exec(html);
        i = m ? m.index : n;
      } else if (name === 'plaintext') {
        break;
      }
    }
    var out = '';
    var at = 0;
    for (var e = 0; e < edits.length; e++) {
      out += html.slice(at, edits[e][0]) + edits[e][2];
      at = edits[e][1];
    }
    out += html.slice(at);
    if (rules.length) out += '\n<style nonce="' + nonce + '">' + rules.join('\n') + '</style>';
    return out;
  }

  // webLink reports whether a link's href (as written in the HTML) leads to
  // a web page: http or https, relative ones resolved as the frame does
  // (against this page's address); a link within the content (#...) is not.
  function webLink(href) {
    var v = decodeAttribute(href).trim();
    if (v === '' || v.charAt(0) === '#') return false;
    try {
      var u = new URL(v, document.baseURI);
      return u.protocol === 'http:' || u.protocol === 'https:';
    } catch (e) {
      return false;
    }
  }

  // INLINE_RANK has the specificity of ten ids: :is() takes its most
  // specific argument's, and '*' makes it match every element.
  var INLINE_RANK = '#x402#x402#x402#x402#x402#x402#x402#x402#x402#x402';

  // decodeAttribute turns the character references of an attribute value
  // into the characters they mean, with the HTML parser of an inert
  // <template>.
  function decodeAttribute(v) {
    if (v.indexOf('&') < 0) return v;
    var t = document.createElement('template');
    t.innerHTML = '<i title="' + v.replace(/"/g, '&quot;') + '"></i>';
    return t.content.firstChild.getAttribute('title') || '';
  }

  async function showContent(res) {
    resultBox.hidden = false;
    resultBox.textContent = '';
    var h = document.createElement('h2');
    h.textContent = 'Your content';
    resultBox.appendChild(h);
    var type = (res.headers.get('Content-Type') || '').toLowerCase();
    var mt = type.split(';')[0].trim();
    if (mt === 'text/html' || mt === 'application/xhtml+xml') {
      // A sandboxed frame: the content's scripts do not run and it cannot
      // reach this page (an opaque origin). Its one permission is to open
      // its web links in a new tab, as an ordinary page (styleForFrame
      // gives them target="_blank").
      var frame = document.createElement('iframe');
      frame.setAttribute('sandbox', 'allow-popups allow-popups-to-escape-sandbox');
      frame.setAttribute('title', 'Paid content');
      var html = await res.text();
      frame.srcdoc = frameNonce ? styleForFrame(html, frameNonce) : html;
      resultBox.appendChild(frame);
      return;
    }
    if (mt.indexOf('image/') === 0 && mt !== 'image/svg+xml') {
      var img = document.createElement('img');
      img.alt = 'Paid content';
      img.src = URL.createObjectURL(await res.blob());
      resultBox.appendChild(img);
      return;
    }
    if (mt === '' || mt.indexOf('text/') === 0 || /(^|[/+])(json|xml)$/.test(mt) || mt === 'application/javascript' || mt === 'image/svg+xml') {
      var text = await res.text();
      if (/(^|[/+])json$/.test(mt)) {
        try { text = JSON.stringify(JSON.parse(text), null, 2); } catch (e) { /* show as sent */ }
      }
      var pre = document.createElement('pre');
      pre.id = 'x402-content';
      pre.textContent = text;
      resultBox.appendChild(pre);
      return;
    }
    var blob = await res.blob();
    var a = document.createElement('a');
    a.className = 'download';
    a.href = URL.createObjectURL(blob);
    a.download = (location.pathname.split('/').pop() || 'content');
    a.textContent = 'Download (' + (mt || 'file') + ', ' + blob.size + ' bytes)';
    resultBox.appendChild(a);
  }

  // ---- the button ----

  var busy = false;
  // step is the payment's step now, named in a failure.
  var step = 'connect';

  function setBusy(on) {
    busy = on;
    if (payButton) payButton.disabled = on;
    if (networkSelect) networkSelect.disabled = on;
    var bs = chooserBox.querySelectorAll('button');
    for (var i = 0; i < bs.length; i++) bs[i].disabled = on;
  }

  // signPayment has the wallet sign the payment of amount (after the
  // connection, the chain switch and, on a Permit2 route, the approval) and
  // returns its header; '' when the person has to choose a wallet first.
  async function signPayment(amount) {
    var wallet = pickWallet();
    if (!wallet) {
      chooseWallet();
      return '';
    }
    if (!chooserBox.hidden) renderChooser();
    var eth = wallet.provider;
    setStep('connect', 'active');
    show('info', 'Connecting…', 'Approve the connection in ' + (wallet.name || 'your wallet') + '.');
    var accounts;
    try {
      accounts = await call(eth, 'eth_requestAccounts');
    } catch (err) {
      if (errorCode(err) === 4001) throw new PaymentError('connect', 'Connection declined', 'You declined the connection request. Nothing was paid.', 'warn');
      throw new PaymentError('connect', 'Your wallet could not connect', errorText(err));
    }
    if (!accounts || !accounts.length) throw new PaymentError('connect', 'No account', 'Your wallet gave no account. Unlock it and try again.');
    var account = accounts[0];

    step = 'chain';
    setStep('chain', 'active');
    await ensureChain(eth);

    step = permit2 ? 'approve' : 'sign';
    setStep(step, 'active');
    await checkBalance(eth, account, amount);
    if (permit2) return payPermit2(eth, account, amount);
    show('info', 'Sign the payment', 'Your wallet asks you to sign a transfer of ' + formatUnits(amount, decimals) + ' ' + symbol + ' to ' + req.payTo + '.');
    return sign(eth, account);
  }

  async function pay() {
    if (busy) return;
    setBusy(true);
    step = 'connect';
    var choosing = false;
    try {
      if (!req) throw new PaymentError('connect', 'Nothing to pay', 'This page has no payment requirements.');
      var amount = BigInt(req.maxAmountRequired);
      var header, v2 = permit2;
      if (unanswered) {
        // The last payment's answer was lost: the same payment again (on
        // its network, whatever was chosen since), no wallet needed.
        if (unanswered.option !== optionIndex) {
          choose(unanswered.option);
          if (networkSelect) networkSelect.value = String(unanswered.option);
          amount = BigInt(req.maxAmountRequired);
        }
        header = unanswered.header;
        v2 = unanswered.v2;
      } else {
        header = await signPayment(amount);
        if (!header) {
          choosing = true;
          return;
        }
      }

      step = 'settle';
      setStep('settle', 'active');
      show('info', unanswered ? 'Sending the same payment again…' : 'Settling…',
        unanswered ? 'The answer to your payment was lost, so the page sends the same payment again (no new signature): it is charged at most once.'
        : upto ? 'The seller is answering and will settle what the answer used, at most ' + formatUnits(amount, decimals) + ' ' + symbol + '.'
        : 'The seller is settling your payment on chain.');
      var out;
      try {
        out = await submit(header, v2);
        unanswered = null;
      } catch (err) {
        unanswered = err && err.lost ? { option: optionIndex, header: header, v2: v2 } : null;
        throw err;
      }
      var s = out.settlement;
      var tx = s && (s.txHash || s.transaction);
      if (tx) showTx(tx, s.blockNumber, s.payer || s.from, !!s.success);
      showSignedReceipt(s);
      var charged = upto ? showCharge(s, amount) : '';
      if (out.res.status >= 400) {
        var settledSome = s && s.success && !(upto && charged === '0');
        setStep('settle', settledSome ? 'done' : 'failed');
        show('error', 'The seller answered ' + out.res.status,
          settledSome ? 'Your payment was settled but the content failed; contact the seller with the transaction hash.' : 'No payment was taken.');
        await showContent(out.res);
        return;
      }
      setStep('settle', 'done');
      // An upto answer settled after it sent its settlement and receipt in
      // a trailer: the page asks the site's look-up for the receipt.
      var sent = upto && !s && signsReceipts() ? sentPayment(header) : null;
      show('ok', 'Paid', upto ? chargeText(s, tx, amount, charged, !!sent)
        : tx ? 'Settled in transaction ' + tx + (s.blockNumber !== undefined ? ' (block ' + s.blockNumber + ')' : '') + '.'
        : 'Here is your content.');
      showAccess(out.res);
      if (payButton) payButton.hidden = true;
      chooserBox.hidden = true;
      var badge = document.querySelector('.badge');
      if (badge) {
        badge.textContent = 'Paid';
        badge.classList.add('paid');
      }
      await showContent(out.res);
      if (sent) followReceipt(sent, amount); // not awaited: the content is shown already
    } catch (err) {
      var e = err instanceof PaymentError ? err : new PaymentError(step, 'Something went wrong', errorText(err));
      setStep(e.step, 'failed');
      show(e.kind, e.title, e.detail);
      if (payButton) payButton.textContent = 'Try again';
    } finally {
      setBusy(false);
      var first = choosing && chooserBox.querySelector('button');
      if (first) first.focus();
    }
  }

  // Several networks: the person chooses one (the page's select, or one
  // made here for a seller's template that has none).
  var networkSelect = $('x402-network');
  if (!networkSelect && accepts.length > 1) {
    networkSelect = document.createElement('select');
    networkSelect.id = 'x402-network';
    accepts.forEach(function (a, i) {
      var o = document.createElement('option');
      o.value = String(i);
      o.textContent = a.network;
      networkSelect.appendChild(o);
    });
    if (payButton && payButton.parentNode) payButton.parentNode.insertBefore(networkSelect, payButton);
    else document.body.appendChild(networkSelect);
  }
  if (networkSelect) {
    networkSelect.addEventListener('change', function () {
      if (!busy) choose(Number(networkSelect.value) || 0);
    });
  }
  choose(networkSelect ? (Number(networkSelect.value) || 0) : 0);

  if (payButton) payButton.addEventListener('click', pay);
  if (paymentRequired.error && paymentRequired.error !== 'X-PAYMENT header is required') {
    show('warn', 'Payment refused', paymentRequired.error);
  }
})();
