// SPDX-License-Identifier: Apache-2.0
pragma solidity 0.8.30;

/// @title Multicall3
/// @notice caddy-x402's stand-in, for its development chain, of Multicall3
/// (canonical address 0xcA11bde05977b3631167028862bE2a173976CA11), written
/// from its published interface: the calls the x402 reference SDKs make
/// (tryAggregate, for batched reads) and the common ones beside them, with
/// its structs and its revert string "Multicall3: call failed". It has no
/// constructor and no storage, so a chain can place it by genesis
/// allocation. For tests and development chains only.
contract Multicall3 {
    struct Call {
        address target;
        bytes callData;
    }

    struct Call3 {
        address target;
        bool allowFailure;
        bytes callData;
    }

    struct Result {
        bool success;
        bytes returnData;
    }

    /// Runs every call; any failure reverts the whole.
    function aggregate(Call[] calldata calls) external payable returns (uint256 blockNumber, bytes[] memory returnData) {
        blockNumber = block.number;
        returnData = new bytes[](calls.length);
        for (uint256 i; i < calls.length; ++i) {
            (bool ok, bytes memory ret) = calls[i].target.call(calls[i].callData);
            require(ok, "Multicall3: call failed");
            returnData[i] = ret;
        }
    }

    /// Runs every call and returns each outcome; with requireSuccess, a
    /// failure reverts the whole.
    function tryAggregate(bool requireSuccess, Call[] calldata calls) external payable returns (Result[] memory returnData) {
        returnData = new Result[](calls.length);
        for (uint256 i; i < calls.length; ++i) {
            (bool ok, bytes memory ret) = calls[i].target.call(calls[i].callData);
            if (requireSuccess) require(ok, "Multicall3: call failed");
            returnData[i] = Result(ok, ret);
        }
    }

    /// Runs every call; a failure of one that does not allow failure
    /// reverts the whole.
    function aggregate3(Call3[] calldata calls) external payable returns (Result[] memory returnData) {
        returnData = new Result[](calls.length);
        for (uint256 i; i < calls.length; ++i) {
            (bool ok, bytes memory ret) = calls[i].target.call(calls[i].callData);
            require(ok || calls[i].allowFailure, "Multicall3: call failed");
            returnData[i] = Result(ok, ret);
        }
    }

    function getBlockNumber() external view returns (uint256 blockNumber) {
        blockNumber = block.number;
    }

    function getCurrentBlockTimestamp() external view returns (uint256 timestamp) {
        timestamp = block.timestamp;
    }

    function getChainId() external view returns (uint256 chainid) {
        chainid = block.chainid;
    }

    function getEthBalance(address addr) external view returns (uint256 balance) {
        balance = addr.balance;
    }
}
